//! Collected CRs kept small until they are compared.
//!
//! A `serde_json::Value` tree costs about twenty times the YAML it came from (a map entry
//! alone is over a hundred bytes before its strings), and kube-compare loads every CR before
//! comparing any. To keep a large run's memory near the input size, `driftlint compare`
//! holds each CR as a compact tagged byte encoding of its value ([`PackedCr`]) and unpacks it
//! only while the engine compares it. The encoding is exact: unpacking gives a value equal
//! to the one packed, with the same key order and the same number representation.
//!
//! This module knows JSON values only; what a CR is and where it came from is `collect`'s.

use serde_json::{Map, Number, Value};

use super::cr::Cr;

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const UINT: u8 = 3;
const INT: u8 = 4;
const FLOAT: u8 = 5;
const STRING: u8 = 6;
const ARRAY: u8 = 7;
const OBJECT: u8 = 8;

/// A collected CR whose object is packed (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct PackedCr {
    /// `apiVersion_kind[_namespace]_name`.
    pub id: String,
    /// Where it came from (see [`Cr::source`]).
    pub source: String,
    object: Box<[u8]>,
}

impl PackedCr {
    /// Packs a CR.
    #[must_use]
    pub fn pack(cr: Cr) -> PackedCr {
        let mut out = Vec::new();
        encode(&cr.object, &mut out);
        PackedCr { id: cr.id, source: cr.source, object: out.into_boxed_slice() }
    }

    /// The CR with its object decoded; the packed bytes are freed.
    #[must_use]
    pub fn unpack(self) -> Cr {
        let mut input = &self.object[..];
        let object = decode(&mut input);
        Cr { id: self.id, object, source: self.source }
    }

    /// The size of the packed object in bytes.
    #[must_use]
    pub fn packed_len(&self) -> usize {
        self.object.len()
    }
}

fn put_len(n: usize, out: &mut Vec<u8>) {
    put_u64(n as u64, out);
}

/// LEB128: lengths and counts are small, most fit one byte.
fn put_u64(mut n: u64, out: &mut Vec<u8>) {
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Frequent Kubernetes keys and values, written as an index instead of their text. The
/// first 64 take one byte. Only an encoding detail: changing the list changes no result.
const WORDS: [&str; 176] = [
    "apiVersion",
    "kind",
    "metadata",
    "name",
    "namespace",
    "labels",
    "annotations",
    "uid",
    "resourceVersion",
    "creationTimestamp",
    "generation",
    "spec",
    "status",
    "data",
    "type",
    "items",
    "template",
    "selector",
    "matchLabels",
    "key",
    "operator",
    "values",
    "value",
    "replicas",
    "containers",
    "image",
    "imagePullPolicy",
    "command",
    "args",
    "env",
    "ports",
    "containerPort",
    "protocol",
    "port",
    "targetPort",
    "resources",
    "limits",
    "requests",
    "cpu",
    "memory",
    "volumeMounts",
    "mountPath",
    "volumes",
    "path",
    "app",
    "app.kubernetes.io/name",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/component",
    "app.kubernetes.io/part-of",
    "app.kubernetes.io/managed-by",
    "app.kubernetes.io/version",
    "v1",
    "apps/v1",
    "TCP",
    "managedFields",
    "ownerReferences",
    "finalizers",
    "deletionTimestamp",
    "generateName",
    "selfLink",
    "stringData",
    "matchExpressions",
    "strategy",
    "rollingUpdate",
    "maxSurge",
    "maxUnavailable",
    "revisionHistoryLimit",
    "progressDeadlineSeconds",
    "minReadySeconds",
    "initContainers",
    "envFrom",
    "valueFrom",
    "fieldRef",
    "fieldPath",
    "secretKeyRef",
    "configMapKeyRef",
    "hostPort",
    "nodePort",
    "clusterIP",
    "clusterIPs",
    "sessionAffinity",
    "loadBalancer",
    "ipFamilies",
    "ipFamilyPolicy",
    "internalTrafficPolicy",
    "storage",
    "readOnly",
    "subPath",
    "configMap",
    "secret",
    "secretName",
    "emptyDir",
    "persistentVolumeClaim",
    "claimName",
    "hostPath",
    "defaultMode",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "httpGet",
    "tcpSocket",
    "exec",
    "scheme",
    "initialDelaySeconds",
    "periodSeconds",
    "timeoutSeconds",
    "successThreshold",
    "failureThreshold",
    "securityContext",
    "runAsUser",
    "runAsNonRoot",
    "runAsGroup",
    "fsGroup",
    "privileged",
    "allowPrivilegeEscalation",
    "capabilities",
    "drop",
    "add",
    "seccompProfile",
    "serviceAccount",
    "serviceAccountName",
    "restartPolicy",
    "terminationGracePeriodSeconds",
    "dnsPolicy",
    "schedulerName",
    "nodeSelector",
    "tolerations",
    "effect",
    "affinity",
    "priorityClassName",
    "hostNetwork",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "conditions",
    "lastTransitionTime",
    "lastUpdateTime",
    "message",
    "reason",
    "observedGeneration",
    "availableReplicas",
    "readyReplicas",
    "updatedReplicas",
    "rules",
    "apiGroups",
    "verbs",
    "subjects",
    "roleRef",
    "UDP",
    "Always",
    "IfNotPresent",
    "Never",
    "ClusterIP",
    "NodePort",
    "LoadBalancer",
    "Opaque",
    "File",
    "ClusterFirst",
    "default-scheduler",
    "RuntimeDefault",
    "True",
    "False",
    "Available",
    "Progressing",
    "RollingUpdate",
    "Deployment",
    "Service",
    "ConfigMap",
    "Secret",
    "Namespace",
    "Pod",
    "rbac.authorization.k8s.io/v1",
    "Role",
    "RoleBinding",
    "ClusterRole",
    "ClusterRoleBinding",
    "ServiceAccount",
];

/// FNV-1a. The table is fixed (nothing is ever inserted after it is built), so no input can
/// lengthen a lookup beyond the table's own chains, and SipHash's defence against chosen keys
/// buys nothing; every key and string of every CR is looked up, so the cheaper hash pays.
#[derive(Default)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type WordIndex = std::collections::HashMap<&'static str, usize, std::hash::BuildHasherDefault<Fnv>>;

static WORD_INDEX: std::sync::LazyLock<WordIndex> =
    std::sync::LazyLock::new(|| WORDS.iter().enumerate().map(|(i, w)| (*w, i)).collect());

/// A key or string: `2 × index + 1` for a [`WORDS`] entry, else `2 × length` and the bytes.
fn put_str(s: &str, out: &mut Vec<u8>) {
    if let Some(&i) = WORD_INDEX.get(s) {
        put_len(2 * i + 1, out);
    } else {
        put_len(2 * s.len(), out);
        out.extend_from_slice(s.as_bytes());
    }
}

fn encode(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(NULL),
        Value::Bool(false) => out.push(FALSE),
        Value::Bool(true) => out.push(TRUE),
        Value::Number(n) => {
            // serde_json keeps non-negative integers as u64, negative ones as i64, the rest
            // as f64; `Number::from` of the same kind rebuilds the same representation.
            if let Some(u) = n.as_u64() {
                out.push(UINT);
                put_u64(u, out);
            } else if let Some(i) = n.as_i64() {
                out.push(INT);
                out.extend_from_slice(&i.to_le_bytes());
            } else {
                out.push(FLOAT);
                out.extend_from_slice(&n.as_f64().unwrap_or(0.0).to_bits().to_le_bytes());
            }
        }
        Value::String(s) => {
            out.push(STRING);
            put_str(s, out);
        }
        Value::Array(items) => {
            out.push(ARRAY);
            put_len(items.len(), out);
            for item in items {
                encode(item, out);
            }
        }
        Value::Object(map) => {
            out.push(OBJECT);
            put_len(map.len(), out);
            for (k, item) in map {
                put_str(k, out);
                encode(item, out);
            }
        }
    }
}

fn take<'a>(input: &mut &'a [u8], n: usize) -> &'a [u8] {
    let (head, tail) = input.split_at(n);
    *input = tail;
    head
}

fn take_len(input: &mut &[u8]) -> usize {
    take_u64(input) as usize
}

fn take_u64(input: &mut &[u8]) -> u64 {
    let (mut n, mut shift) = (0u64, 0);
    loop {
        let b = take(input, 1)[0];
        n |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return n;
        }
        shift += 7;
    }
}

fn take_str(input: &mut &[u8]) -> String {
    let n = take_len(input);
    if n % 2 == 1 {
        return WORDS.get(n / 2).map_or_else(String::new, |w| (*w).to_owned());
    }
    // The bytes were a `str` when packed.
    String::from_utf8_lossy(take(input, n / 2)).into_owned()
}

fn take_8(input: &mut &[u8]) -> [u8; 8] {
    let mut b = [0u8; 8];
    b.copy_from_slice(take(input, 8));
    b
}

/// Decodes what [`encode`] wrote. The input is always our own encoding, so it is trusted.
fn decode(input: &mut &[u8]) -> Value {
    match take(input, 1)[0] {
        FALSE => Value::Bool(false),
        TRUE => Value::Bool(true),
        UINT => Value::Number(Number::from(take_u64(input))),
        INT => Value::Number(Number::from(i64::from_le_bytes(take_8(input)))),
        FLOAT => {
            let f = f64::from_bits(u64::from_le_bytes(take_8(input)));
            Number::from_f64(f).map_or(Value::Null, Value::Number)
        }
        STRING => Value::String(take_str(input)),
        ARRAY => {
            let n = take_len(input);
            Value::Array((0..n).map(|_| decode(input)).collect())
        }
        OBJECT => {
            let n = take_len(input);
            let mut map = Map::with_capacity(n);
            for _ in 0..n {
                let k = take_str(input);
                map.insert(k, decode(input));
            }
            Value::Object(map)
        }
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip_is_exact() {
        let object = json!({
            "z": 1, "a": [-3, 18446744073709551615u64, 1.5, 1e300, -0.0, "é\n", null, true, false],
            "m": {"long": "x".repeat(300), "": {}}, "e": []
        });
        let cr = Cr { id: "v1_X_n".into(), object: object.clone(), source: "f.yaml".into() };
        let packed = PackedCr::pack(cr.clone());
        assert!(packed.packed_len() < serde_json::to_string(&object).unwrap().len());
        let back = packed.unpack();
        assert_eq!(back, cr);
        // Key order and number kinds survive, not only equality.
        assert_eq!(serde_json::to_string(&back.object).unwrap(), serde_json::to_string(&object).unwrap());
        assert_eq!(back.object["a"][0].as_i64(), Some(-3));
        assert!(back.object["a"][2].is_f64());
    }

    #[test]
    fn frequent_words_are_indexes_and_round_trip() {
        assert!(WORDS.iter().all(|w| w.len() > 1));
        assert_eq!(WORD_INDEX.len(), WORDS.len(), "a word is listed twice");
        let object = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "apiVersion", "labels": {"app": "TCP"}},
            "spec": {"replicas": 300, "big": 18446744073709551615u64, "ServiceAccount": ["ServiceAccount", "x"]}
        });
        let cr = Cr { id: "apps/v1_Deployment_x".into(), object: object.clone(), source: "f.yaml".into() };
        let packed = PackedCr::pack(cr.clone());
        // Tags and words one byte each, `300` two, u64::MAX ten, `big` and `x` as text.
        assert_eq!(packed.packed_len(), 53);
        let back = packed.unpack();
        assert_eq!(serde_json::to_string(&back.object).unwrap(), serde_json::to_string(&object).unwrap());
        assert_eq!(back, cr);
    }
}
