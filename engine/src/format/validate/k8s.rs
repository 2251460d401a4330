//! Kubernetes name rules (label keys and values, DNS subdomains), as the
//! API server checks them.

const QUALIFIED_NAME_ERR: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_ERR: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

/// Kubernetes' `RegexError` text.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push_str(&format!("'{e}', "));
    }
    s.push_str(&format!("regex used for validation is '{fmt}')"));
    s
}

fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) if f.is_ascii_alphanumeric() && l.is_ascii_alphanumeric() => b
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')),
        _ => false,
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
fn is_dns1123_subdomain(s: &str) -> bool {
    s.split('.').all(|label| {
        let b = label.as_bytes();
        let edge = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        match (b.first(), b.last()) {
            (Some(f), Some(l)) if edge(f) && edge(l) => b.iter().all(|c| edge(c) || *c == b'-'),
            _ => false,
        }
    })
}

/// Why `key` is not a valid label key (Kubernetes `IsQualifiedName`); empty
/// when it is valid.
pub(crate) fn label_key_errors(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = key.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                if prefix.len() > 253 {
                    errs.push(format!("prefix part {}", max_len_error(253)));
                }
                if !is_dns1123_subdomain(prefix) {
                    errs.push(format!(
                        "prefix part {}",
                        regex_error(
                            DNS1123_SUBDOMAIN_ERR,
                            DNS1123_SUBDOMAIN_FMT,
                            &["example.com"]
                        )
                    ));
                }
            }
            *name
        }
        _ => {
            return vec![format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    QUALIFIED_NAME_ERR,
                    QUALIFIED_NAME_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !is_qualified_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_ERR,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// Why `value` is not a valid label value (Kubernetes `IsValidLabelValue`);
/// empty when it is valid.
pub(crate) fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errs.push(regex_error(
            LABEL_VALUE_ERR,
            &format!("({QUALIFIED_NAME_FMT})?"),
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_keys() {
        assert!(label_key_errors("app").is_empty());
        assert!(label_key_errors("app.kubernetes.io/name").is_empty());
        assert!(label_key_errors("a-b_c.d").is_empty());
        assert_eq!(label_key_errors("app name").len(), 1);
        assert_eq!(
            label_key_errors("/x"),
            vec!["prefix part must be non-empty"]
        );
        assert_eq!(label_key_errors("a/b/c").len(), 1);
        assert!(
            label_key_errors("Example.com/x")[0].starts_with("prefix part a lowercase RFC 1123")
        );
        assert_eq!(label_key_errors("x/").len(), 2);
        assert_eq!(
            label_key_errors(&"a".repeat(64)),
            vec!["name part must be no more than 63 characters"]
        );
        assert!(label_key_errors(&format!("{}/a", "a".repeat(254)))[0].contains("253"));
        assert!(label_key_errors("-a").len() == 1);
    }

    #[test]
    fn label_values() {
        assert!(label_value_errors("").is_empty());
        assert!(label_value_errors("v1.2_x-y").is_empty());
        assert_eq!(label_value_errors("bad value").len(), 1);
        assert_eq!(label_value_errors(&"a".repeat(64)).len(), 1);
        assert!(
            label_value_errors("x.")[0].contains("'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'")
        );
        assert!(
            label_value_errors("x.")[0]
                .contains("(e.g. 'MyValue',  or 'my_value',  or '12345', regex")
        );
    }
}
