/* includes_simgrid.c — deliberately breaks the dependency rule. It is never
 * part of the normal build; tests/test_dependency_rule.c compiles it with the
 * include flags algos/ uses (target hs_algos_rule_probe) and expects the
 * compiler to refuse. */
#include <simgrid/actor.h>

int hs_rule_probe(void) { return 0; }
