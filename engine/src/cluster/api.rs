//! The Kubernetes API as the cluster protocol speaks it: request paths,
//! discovery documents, list envelopes, and HTTP failures mapped to error
//! codes. No IO: a front end makes the requests with its own client.

use serde_json::Value;

use super::ApiResource;
use crate::error::{Error, ErrorCode, Location, Result};
use crate::limits::Limits;
use crate::source;

/// Percent-encode a path segment or query value (RFC 3986 unreserved
/// characters are kept).
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push('%');
                out.push(HEX[usize::from(b >> 4)] as char);
                out.push(HEX[usize::from(b & 15)] as char);
            }
        }
    }
    out
}

/// The path of a resource's collection: in `namespace` when the resource is
/// namespaced and one is given, else across the cluster.
pub fn collection_path(r: &ApiResource, namespace: Option<&str>) -> String {
    let mut p = if r.group.is_empty() {
        format!("/api/{}", r.version)
    } else {
        format!("/apis/{}/{}", r.group, r.version)
    };
    if let Some(ns) = namespace.filter(|_| r.namespaced) {
        p.push_str("/namespaces/");
        p.push_str(&encode(ns));
    }
    p.push('/');
    p.push_str(&r.plural);
    p
}

/// The path of one object.
pub fn object_path(r: &ApiResource, namespace: Option<&str>, name: &str) -> String {
    format!("{}/{}", collection_path(r, namespace), encode(name))
}

/// The request for one page of a list: `limit` (0: no paging), the
/// `continue` token of the page before, a label selector.
pub fn list_request(
    r: &ApiResource,
    namespace: Option<&str>,
    selector: Option<&str>,
    chunk: usize,
    cont: Option<&str>,
) -> String {
    let mut q: Vec<String> = Vec::new();
    if chunk > 0 {
        q.push(format!("limit={chunk}"));
    }
    if let Some(c) = cont {
        q.push(format!("continue={}", encode(c)));
    }
    if let Some(s) = selector.filter(|s| !s.is_empty()) {
        q.push(format!("labelSelector={}", encode(s)));
    }
    with_query(collection_path(r, namespace), &q)
}

/// The request that watches a collection from `resource_version` (empty:
/// from now), with bookmarks, optionally filtered by a label selector.
pub fn watch_request(
    r: &ApiResource,
    namespace: Option<&str>,
    selector: Option<&str>,
    resource_version: &str,
) -> String {
    let mut q = vec![
        "watch=1".to_string(),
        "allowWatchBookmarks=true".to_string(),
    ];
    if !resource_version.is_empty() {
        q.push(format!("resourceVersion={}", encode(resource_version)));
    }
    if let Some(s) = selector.filter(|s| !s.is_empty()) {
        q.push(format!("labelSelector={}", encode(s)));
    }
    with_query(collection_path(r, namespace), &q)
}

fn with_query(mut path: String, q: &[String]) -> String {
    if !q.is_empty() {
        path.push('?');
        path.push_str(&q.join("&"));
    }
    path
}

/// The served resource for an owner reference's `apiVersion` and `kind`:
/// that version, else the group's preferred one, else any served version.
pub fn resource_for<'a>(
    served: &'a [ApiResource],
    api_version: &str,
    kind: &str,
) -> Option<&'a ApiResource> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let same = |r: &&ApiResource| r.group == group && r.kind == kind;
    served
        .iter()
        .filter(same)
        .find(|r| r.version == version)
        .or_else(|| served.iter().filter(same).find(|r| r.preferred))
        .or_else(|| served.iter().find(same))
}

/// The group versions `/apis` lists: (group, version, preferred), in the
/// server's order; at most `max` of them (the caller tells a list cut
/// there from one that ends there by asking for one more than it takes).
pub(crate) fn group_versions(doc: &Value, max: usize) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    let groups = doc.get("groups").and_then(Value::as_array);
    for g in groups.into_iter().flatten() {
        if out.len() >= max {
            break;
        }
        let Some(name) = g.get("name").and_then(Value::as_str) else {
            continue;
        };
        let preferred = g
            .pointer("/preferredVersion/version")
            .and_then(Value::as_str);
        let versions = g.get("versions").and_then(Value::as_array);
        for v in versions.into_iter().flatten() {
            if out.len() >= max {
                break;
            }
            if let Some(version) = v.get("version").and_then(Value::as_str) {
                out.push((
                    name.to_string(),
                    version.to_string(),
                    preferred == Some(version),
                ));
            }
        }
    }
    out
}

/// The resources of an `APIResourceList` (subresources such as
/// `jobs/status` left out).
pub(crate) fn resources_of(
    doc: &Value,
    group: &str,
    version: &str,
    preferred: bool,
) -> Vec<ApiResource> {
    let str_of = |r: &Value, k: &str| {
        r.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let list = doc.get("resources").and_then(Value::as_array);
    list.into_iter()
        .flatten()
        .filter(|r| {
            r.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| !n.is_empty() && !n.contains('/'))
        })
        .map(|r| ApiResource {
            group: group.to_string(),
            version: version.to_string(),
            kind: str_of(r, "kind"),
            plural: str_of(r, "name"),
            singular: str_of(r, "singularName"),
            short_names: r
                .get("shortNames")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            namespaced: r.get("namespaced").and_then(Value::as_bool) == Some(true),
            preferred,
        })
        .collect()
}

/// One page of a list response: its objects, the token of the next page
/// (`None`: the last page) and the list's resourceVersion.
pub(crate) struct Page {
    pub(crate) items: Vec<Value>,
    pub(crate) cont: Option<String>,
    pub(crate) resource_version: String,
}

/// Read one page of a list response within the limits. Its items get
/// their `apiVersion` and `kind` from the list when they lack them (the API
/// server leaves them out of a typed list's items), by the rules of
/// [`crate::source::objects_of_value`].
pub(crate) fn read_page(body: &str, limits: &Limits) -> Result<Page> {
    let value = source::read_value(body, limits)?;
    let Some(map) = value.as_object() else {
        return Err(Error::new(
            ErrorCode::Api,
            "the server's answer is not a list (not a JSON object)",
        ));
    };
    if !matches!(
        map.get("items"),
        Some(Value::Array(_)) | Some(Value::Null) | None
    ) {
        return Err(Error::new(
            ErrorCode::Api,
            "the server's answer is not a list (`items` is not an array)",
        ));
    }
    let text = |k: &str| {
        map.get("metadata")
            .and_then(|m| m.get(k))
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let cont = text("continue");
    let resource_version = text("resourceVersion").unwrap_or_default();
    let items = match map.get("items") {
        Some(Value::Array(_)) => source::objects_of_value(value)?,
        _ => Vec::new(),
    };
    Ok(Page {
        items,
        cont,
        resource_version,
    })
}

/// What the server said in a failure's body: a `Status` object's `message`
/// (else its `reason`), else the body's first 200 bytes.
pub(crate) fn status_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        for k in ["message", "reason"] {
            if let Some(m) = v.get(k).and_then(Value::as_str).filter(|m| !m.is_empty()) {
                return m.to_string();
            }
        }
    }
    let mut end = body.len().min(200);
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    body.get(..end).unwrap_or_default().trim().to_string()
}

/// The error code of an HTTP failure status.
pub fn code_of_status(status: u16) -> ErrorCode {
    match status {
        401 => ErrorCode::Unauthorized,
        403 => ErrorCode::Forbidden,
        404 => ErrorCode::NotFound,
        _ => ErrorCode::Api,
    }
}

/// The error of a failed request: its code from the status (`None`: the
/// server could not be reached), `what` the request was for, the server's
/// words, and the request as the location. `server` names the server.
pub(crate) fn request_error(
    server: &str,
    status: Option<u16>,
    detail: &str,
    what: &str,
    request: &str,
) -> Error {
    let at = Location {
        request: Some(request.to_string()),
        ..Location::default()
    };
    match status {
        None => Error::new(
            ErrorCode::Unreachable,
            format!("cannot reach {server} ({what}): {detail}"),
        )
        .at(at),
        Some(s) => {
            let code = code_of_status(s);
            let message = match code {
                ErrorCode::Unauthorized => {
                    format!("{server} refused the credentials ({what}): {detail}")
                }
                ErrorCode::Forbidden => format!("forbidden ({what}): {detail}"),
                ErrorCode::NotFound => format!("not found ({what}): {detail}"),
                _ => format!("{what}: {detail} (HTTP {s})"),
            };
            Error::new(code, message).at(at).with_status(s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jobsets() -> ApiResource {
        ApiResource {
            group: "jobset.x-k8s.io".into(),
            version: "v1alpha2".into(),
            kind: "JobSet".into(),
            plural: "jobsets".into(),
            singular: "jobset".into(),
            short_names: vec![],
            namespaced: true,
            preferred: true,
        }
    }

    #[test]
    fn paths_and_encoding() {
        let r = jobsets();
        assert_eq!(
            object_path(&r, Some("a b"), "x"),
            "/apis/jobset.x-k8s.io/v1alpha2/namespaces/a%20b/jobsets/x"
        );
        assert_eq!(
            collection_path(&r, None),
            "/apis/jobset.x-k8s.io/v1alpha2/jobsets"
        );
        assert_eq!(encode("app in (a,b)"), "app%20in%20%28a%2Cb%29");
        assert_eq!(encode("é"), "%C3%A9");
        assert_eq!(
            list_request(&r, Some("ml"), Some("team=a"), 500, Some("tok/1")),
            "/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?limit=500&continue=tok%2F1&labelSelector=team%3Da"
        );
        assert_eq!(
            watch_request(&r, None, None, "42"),
            "/apis/jobset.x-k8s.io/v1alpha2/jobsets?watch=1&allowWatchBookmarks=true&resourceVersion=42"
        );
        let pods = ApiResource {
            group: String::new(),
            version: "v1".into(),
            kind: "Pod".into(),
            plural: "pods".into(),
            namespaced: true,
            ..jobsets()
        };
        assert_eq!(
            list_request(&pods, Some("x"), None, 0, None),
            "/api/v1/namespaces/x/pods"
        );
    }

    #[test]
    fn owner_references_find_their_resource() {
        let mut old = jobsets();
        old.version = "v1alpha1".into();
        old.preferred = false;
        let served = vec![old, jobsets()];
        let at = |v: &str| resource_for(&served, v, "JobSet").map(|r| r.version.clone());
        assert_eq!(at("jobset.x-k8s.io/v1alpha1").as_deref(), Some("v1alpha1"));
        assert_eq!(at("jobset.x-k8s.io/v9").as_deref(), Some("v1alpha2"));
        assert_eq!(resource_for(&served, "v1", "JobSet"), None);
    }

    #[test]
    fn statuses_map_to_codes() {
        let e = request_error("the API server", Some(403), "no", "listing jobsets", "/x");
        assert_eq!((e.code(), e.status()), (ErrorCode::Forbidden, Some(403)));
        assert_eq!(e.location().request.as_deref(), Some("/x"));
        assert_eq!(code_of_status(401), ErrorCode::Unauthorized);
        assert_eq!(code_of_status(404), ErrorCode::NotFound);
        assert_eq!(code_of_status(500), ErrorCode::Api);
        assert_eq!(code_of_status(409), ErrorCode::Api);
        let e = request_error(
            "https://k:6443",
            None,
            "connection refused",
            "discovery",
            "/api/v1",
        );
        assert_eq!((e.code(), e.status()), (ErrorCode::Unreachable, None));
        assert!(
            e.message()
                .starts_with("cannot reach https://k:6443 (discovery)")
        );
        assert_eq!(
            status_message(r#"{"kind":"Status","message":"jobsets is forbidden"}"#),
            "jobsets is forbidden"
        );
        assert_eq!(
            status_message("<html>bad gateway</html>"),
            "<html>bad gateway</html>"
        );
        assert_eq!(status_message(&"é".repeat(300)).len(), 200);
    }
}
