# The built-in rules' severities, as one constant for finding.at.
#
# The catalogue proper is data.sv.meta.rules (ids, severities, titles; user
# policies add to it). Reading a severity there costs every finding an
# evaluation of all its entries (regorus evaluates every rule of a package
# when one is referenced); this single constant is cheap. A test checks the
# two agree.
package sv.lib.catalogue

severities := {
	"K8S_001": "high",
	"K8S_002": "high",
	"K8S_003": "med",
	"K8S_004": "med",
	"K8S_005": "low",
	"GEN_001": "med",
	"GEN_002": "low",
	"TF_001": "high",
	"TF_002": "med",
	"TF_003": "high",
	"TF_004": "high",
	"TF_005": "med",
	"TF_006": "high",
	"TF_007": "high",
	"TF_008": "high",
}
