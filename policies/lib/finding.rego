# Deny elements in the shape of the output contract (spec E2 §1.7).
#
# The severity comes from the built-in catalogue (lib/catalogue.rego, kept
# equal to data.sv.meta.rules by a test; the host would override a
# different one anyway).
package sv.lib.finding

import data.sv.lib.catalogue

# An object-level finding; `path` is a JSON Pointer into input.object or
# input.block.config ("" = the object's or block's first line).
at(id, message, path) := {
	"id": id,
	"severity": catalogue.severities[id],
	"message": message,
	"path": path,
}

# A container-level finding. A container without a name is reported at
# object level: the contract's `container` is a name, not a position.
in_container(id, message, path, name) := object.union(at(id, message, path), {"container": name}) if {
	name != ""
}

in_container(id, message, path, name) := at(id, message, path) if {
	name == ""
}

# One JSON Pointer reference token (RFC 6901): `~` → `~0`, `/` → `~1`.
token(key) := replace(replace(key, "~", "~0"), "/", "~1")
