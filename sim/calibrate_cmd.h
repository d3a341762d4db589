/* calibrate_cmd.h — `hearsay calibrate`: fit a scenario's machine to
 * nccl-tests measurements and write it as a system file. */
#ifndef HS_SIM_CALIBRATE_CMD_H
#define HS_SIM_CALIBRATE_CMD_H

/* argv as main got it (argv[1] is "calibrate"); returns the exit code:
 * 0, 1 (a simulation or a write failed), 2 (bad input, nothing written). */
int hs_cmd_calibrate(int argc, char **argv);

#endif
