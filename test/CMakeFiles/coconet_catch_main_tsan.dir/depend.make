# Empty dependencies file for coconet_catch_main_tsan.
# This may be replaced when dependencies are built.
