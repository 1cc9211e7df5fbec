# Empty compiler generated dependencies file for lesson_05_overlap_megatron.
# This may be replaced when dependencies are built.
