//! Port checks: SSH exposed, malformed port names and numbers, and probes
//! aimed at ports the container does not expose.

use crate::k8s::decode::IntOrString;
use crate::k8s::types::{Container, Probe};
use crate::k8s::{Body, K8sObject};
use crate::kube_linter::registry::{Context, Diagnostic};
use crate::kube_linter::util::{line_of, show_int_or_string};

const SSH_PORT: i32 = 22;

/// Whether a container port's protocol is TCP (unset means TCP).
fn is_tcp(protocol: &str) -> bool {
    protocol.is_empty() || protocol == "TCP"
}

/// `ssh-port`: per container (all containers), per TCP port 22.
pub(crate) fn ssh_port(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in spec.all_containers() {
        for port in &c.ports {
            if port.container_port == SSH_PORT && is_tcp(&port.protocol) {
                out.push(Diagnostic::container(
                    line_of(port.line, object),
                    &c.name,
                    format!("container {:?} exposes the SSH port 22/TCP", c.name),
                ));
            }
        }
    }
    out
}

/// apimachinery's `IsValidPortName` (an IANA service name): why `name` is
/// not one, if it is not.
fn port_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 15 {
        return Some("must be 1-15 characters long");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Some("may contain only lowercase letters, digits and '-'");
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        return Some("must contain at least one letter");
    }
    if name.contains("--") {
        return Some("must not contain consecutive '-'");
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some("must not begin or end with '-'");
    }
    None
}

/// `invalid-target-ports`: container ports with an invalid name (all
/// containers of DL objects), and `v1` Service ports whose `targetPort` is an
/// invalid name or a non-zero number outside 1–65535. One per port.
pub(crate) fn invalid_target_ports(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Body::Service(spec) = &object.body {
        if object.api_version == "v1" {
            for port in &spec.ports {
                let problem = match &port.target_port {
                    Some(IntOrString::Str(name)) => port_name_problem(name),
                    Some(IntOrString::Int(n)) if *n != 0 && !(1..=65535).contains(n) => {
                        Some("must be between 1 and 65535")
                    }
                    _ => None,
                };
                if let (Some(problem), Some(target)) = (problem, &port.target_port) {
                    out.push(Diagnostic::object(
                        line_of(port.line, object),
                        format!(
                            "service port {:?} has an invalid targetPort {}: {problem}",
                            port.name,
                            show_int_or_string(target)
                        ),
                    ));
                }
            }
        }
    }
    if let Some(spec) = object.pod_spec() {
        for c in spec.all_containers() {
            for port in c.ports.iter().filter(|p| !p.name.is_empty()) {
                if let Some(problem) = port_name_problem(&port.name) {
                    out.push(Diagnostic::container(
                        line_of(port.line, object),
                        &c.name,
                        format!(
                            "container {:?} has a port with the invalid name {:?}: {problem}",
                            c.name, port.name
                        ),
                    ));
                }
            }
        }
    }
    out
}

/// The first handler of `probe` whose port the container does not expose
/// over TCP (by number or by name), as `(line, handler, port)`; kube-linter
/// stops at the first such handler.
fn unexposed_probe_port(c: &Container, probe: &Probe) -> Option<(usize, &'static str, String)> {
    let exposed: Vec<IntOrString> = c
        .ports
        .iter()
        .filter(|p| is_tcp(&p.protocol))
        .flat_map(|p| {
            [
                IntOrString::Int(p.container_port),
                IntOrString::Str(p.name.clone()),
            ]
        })
        .collect();
    if let Some(h) = &probe.http_get {
        if !exposed.contains(&h.port) {
            return Some((h.line, "httpGet", show_int_or_string(&h.port)));
        }
    }
    if let Some(t) = &probe.tcp_socket {
        if !exposed.contains(&t.port) {
            return Some((t.line, "tcpSocket", show_int_or_string(&t.port)));
        }
    }
    if let Some(g) = &probe.grpc {
        if !exposed.contains(&IntOrString::Int(g.port)) {
            return Some((g.line, "grpc", g.port.to_string()));
        }
    }
    None
}

/// Per regular container with the probe `which` selects: one finding when
/// it targets a port the container does not expose.
fn probe_port(
    object: &K8sObject,
    probe_name: &str,
    which: fn(&Container) -> Option<&Probe>,
) -> Vec<Diagnostic> {
    let Some(spec) = object.pod_spec() else {
        return Vec::new();
    };
    spec.containers
        .iter()
        .filter_map(|c| {
            let (line, handler, port) = unexposed_probe_port(c, which(c)?)?;
            Some(Diagnostic::container(
                line_of(line, object),
                &c.name,
                format!(
                    "container {:?} {probe_name} probe ({handler}) targets port {port}, which the container does not expose over TCP",
                    c.name
                ),
            ))
        })
        .collect()
}

/// `liveness-port`.
pub(crate) fn liveness_port(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    probe_port(object, "liveness", |c| c.liveness_probe.as_ref())
}

/// `readiness-port`.
pub(crate) fn readiness_port(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    probe_port(object, "readiness", |c| c.readiness_probe.as_ref())
}

/// `startup-port`.
pub(crate) fn startup_port(_: &Context<'_>, object: &K8sObject) -> Vec<Diagnostic> {
    probe_port(object, "startup", |c| c.startup_probe.as_ref())
}
