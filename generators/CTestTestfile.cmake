# CMake generated Testfile for 
# Source directory: /work/main/generators
# Build directory: /work/main/generators
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
