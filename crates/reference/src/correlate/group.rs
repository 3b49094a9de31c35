//! kube-compare's group correlator (spec §4.2) and its overlap warnings (§4.7).
//!
//! Generic over what is correlated (templates, user overrides): callers pass, per entry, the
//! *fixed* values of the four correlation fields. Each field group, in the given order,
//! claims every unclaimed entry whose fields in the group are all fixed, into buckets keyed by
//! the values joined with `_`. A CR is looked up group by group; the first bucket hit returns
//! all of its entries and nothing later is tried.

use indexmap::IndexMap;
use serde_json::Value;

/// A correlation field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    ApiVersion,
    Name,
    Namespace,
    Kind,
}

impl Field {
    /// The field path joined with `_`, as kube-compare prints it in the overlap warning.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Field::ApiVersion => "apiVersion",
            Field::Name => "metadata_name",
            Field::Namespace => "metadata_namespace",
            Field::Kind => "kind",
        }
    }

    /// The CR's value, when present as a string (`NestedString`).
    #[must_use]
    pub fn of(self, cr: &Value) -> Option<&str> {
        let v = match self {
            Field::ApiVersion => cr.get("apiVersion"),
            Field::Kind => cr.get("kind"),
            Field::Name => cr.get("metadata").and_then(|m| m.get("name")),
            Field::Namespace => cr.get("metadata").and_then(|m| m.get("namespace")),
        };
        v.and_then(Value::as_str)
    }
}

use Field::{ApiVersion as A, Kind as K, Name as N, Namespace as S};

/// The groups as written in kube-compare (`defaultFieldGroups`); the override correlator
/// ends up using this order (§4.2, §6.2).
pub const DECLARED_ORDER: [&[Field]; 8] =
    [&[A, N, S, K], &[A, S, K], &[N, S, K], &[A, N, K], &[N, K], &[S, K], &[A, K], &[K]];

/// The order the template correlator really uses: Go's `sort.Slice` with the non-strict
/// comparator `len(a) >= len(b)` reverses runs of equal length (§4.2, verified empirically).
pub const EFFECTIVE_ORDER: [&[Field]; 8] =
    [&[A, N, S, K], &[A, N, K], &[N, S, K], &[A, S, K], &[A, K], &[S, K], &[N, K], &[K]];

/// What an entry has fixed: `Some` non-empty strings only.
pub trait FixedFields {
    fn fixed(&self, field: Field) -> Option<&str>;
}

struct GroupIndex {
    fields: &'static [Field],
    /// key → entry indices in input order.
    buckets: IndexMap<String, Vec<usize>>,
}

/// A built group correlator. Candidates are indices into the slice it was built from.
pub struct GroupCorrelator {
    groups: Vec<GroupIndex>,
}

fn key(fields: &[Field], value: impl Fn(Field) -> Option<String>) -> Option<String> {
    let mut parts = Vec::with_capacity(fields.len());
    for f in fields {
        parts.push(value(*f).filter(|v| !v.is_empty())?);
    }
    Some(parts.join("_"))
}

impl GroupCorrelator {
    /// Claims `entries` group by group (`NewGroupCorrelator`). Groups that claim nothing are
    /// dropped; claiming stops once every entry is claimed.
    pub fn new<T: FixedFields>(order: &[&'static [Field]], entries: &[T]) -> GroupCorrelator {
        let mut unclaimed: Vec<usize> = (0..entries.len()).collect();
        let mut groups = Vec::new();
        for fields in order {
            if unclaimed.is_empty() {
                break;
            }
            let mut buckets: IndexMap<String, Vec<usize>> = IndexMap::new();
            unclaimed.retain(|&i| {
                // `ClaimTemplates` also refuses values containing `<no value>`.
                let k = key(fields, |f| entries[i].fixed(f).map(str::to_owned));
                match k {
                    Some(k) if !k.contains("<no value>") => {
                        buckets.entry(k).or_default().push(i);
                        false
                    }
                    _ => true,
                }
            });
            if !buckets.is_empty() {
                groups.push(GroupIndex { fields, buckets });
            }
        }
        GroupCorrelator { groups }
    }

    /// The candidates for `cr`: the first bucket hit, in input order; `None` is
    /// kube-compare's `UnknownMatch`.
    #[must_use]
    pub fn candidates(&self, cr: &Value) -> Option<&[usize]> {
        self.groups.iter().find_map(|g| {
            let k = key(g.fields, |f| f.of(cr).map(str::to_owned))?;
            g.buckets.get(&k).map(Vec::as_slice)
        })
    }

    /// The overlap warnings logged at load (§4.7): one per group that has a bucket with more
    /// than one entry. Verbose: every such bucket's text, joined by newlines like Go's
    /// `errors.Join` (kube-compare's order is Go map order; ours is first-claim order).
    /// `ids` gives each entry's identifier (a template's path).
    #[must_use]
    pub fn overlap_warnings(&self, ids: &[String], verbose: bool) -> Vec<String> {
        let mut out = Vec::new();
        for g in &self.groups {
            let mut texts = Vec::new();
            for members in g.buckets.values().filter(|m| m.len() > 1) {
                let mut names: Vec<&str> = members.iter().map(|&i| ids.get(i).map_or("", String::as_str)).collect();
                names.sort_unstable();
                let fields: Vec<&str> = g.fields.iter().map(|f| f.label()).collect();
                texts.push(format!(
                    "More than one template with same {}. By Default for each Cluster CR that is correlated to one of \
                     these templates the template with the least number of diffs will be used. To use a different \
                     template for a specific CR specify it in the diff-config (-c flag) Template names are: {}",
                    fields.join(", "),
                    names.join(", ")
                ));
            }
            if texts.is_empty() {
                continue;
            }
            out.push(if verbose { texts.join("\n") } else { OVERLAP_SHORT.to_owned() });
        }
        out
    }
}

/// The non-verbose overlap warning.
pub const OVERLAP_SHORT: &str = "The reference contains overlapping object definitions which may result in unexpected \
                                 correlation results. Re-run with '--verbose' output enabled to view a detailed \
                                 description of the issues";
