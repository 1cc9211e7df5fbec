// CoCoNet for Halide: distributed algorithms (computation and collective
// communication in global coordinates), lowered to Halide pipelines that run on
// R ranks over the CoCoNet runtime. Include this one header.
#ifndef COCONET_H
#define COCONET_H

#include "Collectives.h"
#include "DFunc.h"
#include "Error.h"
#include "Generator.h"
#include "JitProgram.h"
#include "Layout.h"
#include "Lower.h"
#include "Partition.h"
#include "PrintPlan.h"
#include "Program.h"
#include "Random.h"
#include "RankData.h"
#include "Reference.h"

#endif
