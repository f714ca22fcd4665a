# The containers of input.object, computed once per evaluation.
#
# Rules rather than calls to the sv.lib.k8s functions (regorus does not
# memoise function calls, and several rules walk the same containers), in a
# package of their own (regorus evaluates every rule of a package whenever
# one of them is referenced).
package sv.lib.pod

import data.sv.lib.k8s

# Init and regular containers.
containers := k8s.containers(input.object)

# Init, regular and ephemeral containers.
all_containers := k8s.all_containers(input.object)
