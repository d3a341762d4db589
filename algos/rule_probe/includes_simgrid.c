/* includes_simgrid.c — deliberately breaks the dependency rule. It is never
 * part of the build; tests/test_dependency_rule.c compiles it with the flags
 * algos/ uses and expects the compiler to refuse. */
#include <simgrid/actor.h>

int hs_rule_probe(void) { return 0; }
