# CMake generated Testfile for 
# Source directory: /work/main/apps
# Build directory: /work/main/apps
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("bench")
