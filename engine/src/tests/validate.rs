//! Reading and validating definitions (`workload_lens::{definition, validate}`).

use serde_json::json;
use workload_lens::definition::{LoadedDefinition, definition_from_value, read_definitions};
use workload_lens::validate::{validate, validate_loaded};
use workload_lens::{Error, ErrorCode, Finding, Limits, Severity};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const ROOT_OK: &str = "
      name: job
      kind: {group: batch.example.com, version: v1, kind: Job}
      statusDefinition:
        statusMappings:
          running:
            - byPhase: Running
";

const CHILD_OK: &str = "
      - name: worker
        ownerRef: job
        specDefinition:
          podTemplateSpecPath: .spec.template
";

/// A `Karta` with the given root body, child list and
/// `optimizationInstructions` body (each already indented).
fn karta(root: &str, children: &str, instructions: &str) -> String {
    generation("run.ai/v1alpha1", "Karta", root, children, instructions)
}

fn generation(
    api_version: &str,
    kind: &str,
    root: &str,
    children: &str,
    instructions: &str,
) -> String {
    let mut s = format!(
        "apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: test\nspec:\n  structureDefinition:\n    rootComponent:\n{root}"
    );
    if !children.is_empty() {
        s.push_str("    childComponents:\n");
        s.push_str(children);
    }
    if !instructions.is_empty() {
        s.push_str("  optimizationInstructions:\n");
        s.push_str(instructions);
    }
    s
}

fn load(text: &str) -> LoadedDefinition {
    match read_definitions(text, &Limits::default()) {
        Ok(mut v) if v.len() == 1 => v.remove(0),
        Ok(v) => panic!("expected one definition, got {}", v.len()),
        Err(e) => panic!("unexpected error: {e}\n{text}"),
    }
}

fn check(text: &str) -> Vec<Finding> {
    validate_loaded(&load(text), &Limits::default())
}

fn read_err(text: &str) -> Error {
    match read_definitions(text, &Limits::default()) {
        Ok(v) => panic!("expected an error, got {} definitions", v.len()),
        Err(e) => e,
    }
}

/// 1-based line and column of the `n`th (0-based) occurrence of `needle`.
#[track_caller]
fn pos_nth(text: &str, needle: &str, n: usize) -> (usize, usize) {
    let (idx, _) = text
        .match_indices(needle)
        .nth(n)
        .unwrap_or_else(|| panic!("{needle:?} not found in\n{text}"));
    let before = &text[..idx];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

#[track_caller]
fn pos(text: &str, needle: &str) -> (usize, usize) {
    pos_nth(text, needle, 0)
}

fn codes(findings: &[Finding]) -> Vec<&str> {
    findings.iter().map(|f| f.code.as_str()).collect()
}

/// The one finding with `code` at `field`.
#[track_caller]
fn find<'a>(findings: &'a [Finding], code: &str, field: &str) -> &'a Finding {
    let hits: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.code == code && f.location.field.as_deref() == Some(field))
        .collect();
    match hits.as_slice() {
        [one] => one,
        _ => panic!(
            "expected one {code} at {field}, got {}: {findings:#?}",
            hits.len()
        ),
    }
}

/// Assert one finding: code, message, field, position (of `needle`).
#[track_caller]
fn expect(
    findings: &[Finding],
    code: &str,
    message: &str,
    field: &str,
    at: (usize, usize),
) -> Finding {
    let f = find(findings, code, field);
    assert_eq!(f.message, message);
    assert_eq!(
        (f.location.line, f.location.column),
        (Some(at.0), Some(at.1))
    );
    f.clone()
}

fn errors(findings: &[Finding]) -> Vec<&Finding> {
    findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect()
}

const R: &str = "spec.structureDefinition.rootComponent";
const C0: &str = "spec.structureDefinition.childComponents[0]";
const C1: &str = "spec.structureDefinition.childComponents[1]";
const GANG: &str = "spec.optimizationInstructions.gangScheduling";

// ---------------------------------------------------------------------------
// Valid definitions, both generations
// ---------------------------------------------------------------------------

#[test]
fn valid_karta_has_no_findings() {
    let text = karta(ROOT_OK, CHILD_OK, "");
    assert_eq!(check(&text), Vec::<Finding>::new());
}

#[test]
fn valid_rich_karta_has_no_findings() {
    let root = "
      name: job
      kind: {group: jobset.x-k8s.io, version: v1alpha2, kind: JobSet}
      statusDefinition:
        phaseDefinition:
          path: .status.phase
        conditionsDefinition:
          path: .status.conditions
          typeFieldName: type
          statusFieldName: status
        statusMappings:
          running:
            - byConditions:
                - type: Running
                  status: \"True\"
          suspended:
            - byExpression:
                expression: .spec.suspend
                expectedResult: \"true\"
      suspendDefinition:
        suspendActions:
          - path: .spec.suspend
            value: \"true\"
        resumeActions:
          - path: .spec.suspend
            value: \"false\"
";
    let children = "
      - name: replicatedjob
        ownerRef: job
        instanceIdPath: .spec.replicatedJobs[].name
        specDefinition:
          podTemplateSpecPath: .spec.replicatedJobs[].template.spec.template
        scaleDefinition:
          replicasPath: .spec.replicatedJobs[].replicas
        podSelector:
          componentTypeSelector:
            matchLabels:
              jobset.sigs.k8s.io/jobset-name: x
          componentInstanceSelector:
            idPath: '.metadata.labels[\"jobset.sigs.k8s.io/replicatedjob-name\"]'
          replicaSelector:
            keyPath: '.metadata.labels[\"jobset.sigs.k8s.io/job-index\"]'
";
    let gang = "
    gangScheduling:
      podGroups:
        - name: all
          members:
            - componentName: replicatedjob
              groupByKeyPaths:
                - .metadata.labels.a
              filters:
                - .metadata.labels.b == \"x\"
      podGroup:
        name: all
        subGroups:
          - componentName: replicatedjob
            topology: {topologyName: zone, requiredTopologyLevel: rack}
        topology: {topologyName: zone, preferredTopologyLevel: zone}
";
    let findings = check(&karta(root, children, gang));
    assert_eq!(findings, Vec::<Finding>::new());
}

#[test]
fn valid_resource_interface_has_no_findings() {
    let text = generation(
        "optimization.nvidia.com/v1alpha1",
        "ResourceInterface",
        ROOT_OK,
        CHILD_OK,
        "",
    );
    let loaded = load(&text);
    assert_eq!(
        loaded.definition.generation(),
        Some(workload_lens::model::Generation::ResourceInterface)
    );
    assert_eq!(
        validate_loaded(&loaded, &Limits::default()),
        Vec::<Finding>::new()
    );
}

#[test]
fn conditions_field_name_defaults_are_not_applied_when_reading() {
    let root = "
      name: job
      kind: {group: g, version: v1, kind: K}
      statusDefinition:
        conditionsDefinition:
          path: .status.conditions
        statusMappings: {}
";
    let d = load(&karta(root, CHILD_OK, "")).definition;
    let cd = d
        .root()
        .status_definition
        .as_ref()
        .and_then(|s| s.conditions_definition.as_ref());
    let cd = cd.unwrap_or_else(|| panic!("no conditionsDefinition"));
    assert_eq!(cd.type_field_name, None);
    assert_eq!(cd.status_field_name, None);
    assert_eq!(cd.message_field_name, None);
    assert_eq!(cd.reason_field_name, None);
}

// ---------------------------------------------------------------------------
// One test per rule
// ---------------------------------------------------------------------------

#[test]
fn rule_duplicate_component_name() {
    let children = "
      - name: worker
        ownerRef: job
      - name: worker
        ownerRef: job
      - name: job
        ownerRef: worker
";
    let text = karta(ROOT_OK, children, "");
    let f = check(&text);
    expect(
        &f,
        "duplicate-component-name",
        "component name 'worker' is not unique",
        &format!("{C1}.name"),
        pos_nth(&text, "name: worker", 1),
    );
    let dup_root = expect(
        &f,
        "duplicate-component-name",
        "component name 'job' is not unique",
        "spec.structureDefinition.childComponents[2].name",
        pos_nth(&text, "name: job", 1),
    );
    assert_eq!(dup_root.location.component.as_deref(), Some("job"));
    assert_eq!(
        f.iter()
            .filter(|x| x.code == "duplicate-component-name")
            .count(),
        2
    );
}

#[test]
fn rule_empty_component_name() {
    let children = "
      - name: \"\"
        ownerRef: job
      - ownerRef: job
";
    let text = karta(ROOT_OK, children, "");
    let f = check(&text);
    expect(
        &f,
        "empty-component-name",
        "component name is empty",
        &format!("{C0}.name"),
        pos(&text, "name: \"\""),
    );
    // A missing name is empty too (and the two empty names are duplicates,
    // as in the reference).
    let missing = find(&f, "empty-component-name", &format!("{C1}.name"));
    assert_eq!(missing.location.line, Some(pos(&text, "- ownerRef: job").0));
    find(&f, "duplicate-component-name", &format!("{C1}.name"));
}

#[test]
fn rule_root_kind_incomplete() {
    for (kind, ok) in [
        ("kind: {group: \"\", version: v1, kind: Pod}", true),
        ("kind: {group: \"\", version: v1, kind: Service}", false),
        ("kind: {group: g, version: \"\", kind: K}", false),
        ("kind: {group: g, version: v1, kind: \"\"}", false),
        ("kind: {group: g, version: v1}", false),
    ] {
        let root = ROOT_OK.replace(
            "kind: {group: batch.example.com, version: v1, kind: Job}",
            kind,
        );
        let text = karta(&root, CHILD_OK, "");
        let f = check(&text);
        if ok {
            assert_eq!(f, Vec::<Finding>::new(), "{kind}");
        } else {
            expect(
                &f,
                "root-kind-incomplete",
                "root component must have full kind (group, version, kind)",
                &format!("{R}.kind"),
                pos(&text, "kind: {"),
            );
        }
    }
    // No kind at all: reported at the (missing) field, located at the root
    // component.
    let root = ROOT_OK.replace(
        "      kind: {group: batch.example.com, version: v1, kind: Job}\n",
        "",
    );
    let text = karta(&root, CHILD_OK, "");
    let f = check(&text);
    expect(
        &f,
        "root-kind-incomplete",
        "root component must have full kind (group, version, kind)",
        &format!("{R}.kind"),
        pos(&text, "rootComponent"),
    );
}

#[test]
fn rule_root_owner_ref() {
    let root = format!("{ROOT_OK}      ownerRef: \"\"\n");
    let text = karta(&root, CHILD_OK, "");
    let f = check(&text);
    expect(
        &f,
        "root-owner-ref",
        "root component cannot have owner ref",
        &format!("{R}.ownerRef"),
        pos(&text, "ownerRef: \"\""),
    );
}

#[test]
fn rule_root_status_definition_missing() {
    let root = "      name: job\n      kind: {group: g, version: v1, kind: K}\n";
    let text = karta(root, CHILD_OK, "");
    let f = check(&text);
    expect(
        &f,
        "root-status-definition-missing",
        "root component must have status definition",
        &format!("{R}.statusDefinition"),
        pos(&text, "rootComponent"),
    );
}

#[test]
fn rule_missing_owner_ref() {
    let children = "
      - name: a
      - name: b
        ownerRef: \"\"
";
    let text = karta(ROOT_OK, children, "");
    let f = check(&text);
    expect(
        &f,
        "missing-owner-ref",
        "child component 'a' has no owner ref",
        &format!("{C0}.ownerRef"),
        pos(&text, "name: a"),
    );
    expect(
        &f,
        "missing-owner-ref",
        "child component 'b' has no owner ref",
        &format!("{C1}.ownerRef"),
        pos(&text, "ownerRef: \"\""),
    );
}

#[test]
fn rule_unknown_owner_ref() {
    let children = "      - name: a\n        ownerRef: nope\n";
    let text = karta(ROOT_OK, children, "");
    let f = check(&text);
    expect(
        &f,
        "unknown-owner-ref",
        "child component 'a' has owner ref to non-existing component 'nope'",
        &format!("{C0}.ownerRef"),
        pos(&text, "ownerRef: nope"),
    );
}

#[test]
fn rule_multiple_pod_spec_definitions() {
    // The reference guides' KServe predictor: podSpecPath and a fragmented spec.
    let children = "
      - name: predictor
        ownerRef: job
        specDefinition:
          podSpecPath: .spec.predictor
          metadataPath: .metadata
          fragmentedPodSpecDefinition:
            containersPath: .spec.predictor.containers
";
    let text = karta(ROOT_OK, children, "");
    let f = check(&text);
    expect(
        &f,
        "multiple-pod-spec-definitions",
        "component 'predictor' has multiple pod spec definitions",
        &format!("{C0}.specDefinition"),
        pos(&text, "specDefinition"),
    );
    // metadataPath does not count.
    let single = text.replace(
        "          fragmentedPodSpecDefinition:\n            containersPath: .spec.predictor.containers\n",
        "",
    );
    assert_eq!(check(&single), Vec::<Finding>::new());
}

#[test]
fn rule_instance_id_path_without_selector() {
    let children = format!("{CHILD_OK}        instanceIdPath: .spec.groups[].name\n");
    let text = karta(ROOT_OK, &children, "");
    let f = check(&text);
    expect(
        &f,
        "instance-id-path-without-selector",
        "component 'worker' has instance id path but no pod component instance selector",
        &format!("{C0}.instanceIdPath"),
        pos(&text, "instanceIdPath"),
    );
    assert_eq!(codes(&f), vec!["instance-id-path-without-selector"]);
}

#[test]
fn rule_instance_selector_without_id_path() {
    let children = format!(
        "{CHILD_OK}        podSelector:\n          componentInstanceSelector:\n            idPath: .metadata.labels.group\n"
    );
    let text = karta(ROOT_OK, &children, "");
    let f = check(&text);
    expect(
        &f,
        "instance-selector-without-id-path",
        "component 'worker' has pod component instance selector but no instance id path",
        &format!("{C0}.podSelector.componentInstanceSelector"),
        pos(&text, "componentInstanceSelector"),
    );
    assert_eq!(codes(&f), vec!["instance-selector-without-id-path"]);
}

fn with_type_selector(selector: &str) -> String {
    let children =
        format!("{CHILD_OK}        podSelector:\n          componentTypeSelector:\n{selector}");
    karta(ROOT_OK, &children, "")
}

#[test]
fn rule_type_selector_empty() {
    let text = with_type_selector("            {}\n").replace(
        "componentTypeSelector:\n            {}",
        "componentTypeSelector: {}",
    );
    let f = check(&text);
    expect(
        &f,
        "type-selector-empty",
        "component 'worker' has a componentTypeSelector with neither keyPath nor matchLabels",
        &format!("{C0}.podSelector.componentTypeSelector"),
        pos(&text, "componentTypeSelector"),
    );
}

#[test]
fn rule_type_selector_empty_match_labels() {
    let text = with_type_selector("            matchLabels: {}\n");
    let f = check(&text);
    expect(
        &f,
        "type-selector-empty-match-labels",
        "component 'worker' has a componentTypeSelector with empty matchLabels",
        &format!("{C0}.podSelector.componentTypeSelector.matchLabels"),
        pos(&text, "matchLabels"),
    );
    assert_eq!(codes(&f), vec!["type-selector-empty-match-labels"]);
}

#[test]
fn rule_type_selector_value_without_key_path() {
    let text =
        with_type_selector("            value: worker\n            matchLabels: {role: worker}\n");
    let f = check(&text);
    expect(
        &f,
        "type-selector-value-without-key-path",
        "component 'worker' has a componentTypeSelector with value without keyPath",
        &format!("{C0}.podSelector.componentTypeSelector.value"),
        pos(&text, "value: worker"),
    );
    assert_eq!(codes(&f), vec!["type-selector-value-without-key-path"]);
}

#[test]
fn rule_invalid_label_keys_and_values_in_sorted_order() {
    let text = with_type_selector(
        "            matchLabels:\n              zeta: \"bad value\"\n              \"app name\": ok\n              example.com/ok: \"\"\n              Example.com/x: v\n              good: \"-bad\"\n",
    );
    let f = check(&text);
    let sel = format!("{C0}.podSelector.componentTypeSelector.matchLabels");
    let k = expect(
        &f,
        "invalid-label-key",
        "component 'worker' has an invalid componentTypeSelector.matchLabels key: Invalid value: \"app name\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        &format!("{sel}[\"app name\"]"),
        pos(&text, "\"app name\""),
    );
    assert_eq!(k.severity, Severity::Error);
    let prefix = find(
        &f,
        "invalid-label-key",
        &format!("{sel}[\"Example.com/x\"]"),
    );
    assert!(
        prefix.message.contains(
            "Invalid value: \"Example.com/x\": prefix part a lowercase RFC 1123 subdomain"
        ),
        "{}",
        prefix.message
    );
    let v = find(&f, "invalid-label-value", &format!("{sel}.zeta"));
    assert!(
        v.message
            .contains("Invalid value: \"bad value\": a valid label must be an empty string")
    );
    find(&f, "invalid-label-value", &format!("{sel}.good"));
    // Sorted key order (validate() without positions keeps it).
    let d = load(&text).definition;
    let order: Vec<String> = validate(&d, &Limits::default())
        .iter()
        .filter_map(|f| f.location.field.clone())
        .collect();
    assert_eq!(
        order,
        vec![
            format!("{sel}[\"Example.com/x\"]"),
            format!("{sel}[\"app name\"]"),
            format!("{sel}.good"),
            format!("{sel}.zeta"),
        ]
    );
}

#[test]
fn rule_ownership_cycle() {
    let children = "
      - name: a
        ownerRef: b
      - name: b
        ownerRef: a
      - name: self
        ownerRef: self
      - name: c
        ownerRef: a
";
    let text = karta(ROOT_OK, children, "");
    let f = check(&text);
    expect(
        &f,
        "ownership-cycle",
        "ownership cycle detected involving component 'a' (a -> b -> a)",
        &format!("{C0}.ownerRef"),
        pos(&text, "ownerRef: b"),
    );
    expect(
        &f,
        "ownership-cycle",
        "ownership cycle detected involving component 'self' (self -> self)",
        "spec.structureDefinition.childComponents[2].ownerRef",
        pos(&text, "ownerRef: self"),
    );
    // Each cycle once; `c` hangs off a cycle but is not in one.
    assert_eq!(f.iter().filter(|x| x.code == "ownership-cycle").count(), 2);
}

#[test]
fn rule_ownership_cycle_in_a_long_ring_ends() {
    let n = 2000;
    let mut children = String::new();
    for i in 0..n {
        children.push_str(&format!(
            "      - name: c{i}\n        ownerRef: c{}\n",
            (i + 1) % n
        ));
    }
    let text = karta(ROOT_OK, &children, "");
    let f = check(&text);
    let cycles: Vec<&Finding> = f.iter().filter(|x| x.code == "ownership-cycle").collect();
    assert_eq!(cycles.len(), 1);
    assert!(
        cycles[0]
            .message
            .starts_with("ownership cycle detected involving component 'c0' (c0 -> c1 -> c2")
    );
    assert!(cycles[0].message.ends_with("c1999 -> c0)"));
}

#[test]
fn rule_undefined_pod_group_member() {
    let gang = "
    gangScheduling:
      podGroups:
        - name: g
          members:
            - componentName: worker
            - componentName: ghost
";
    let text = karta(ROOT_OK, CHILD_OK, gang);
    let f = check(&text);
    expect(
        &f,
        "undefined-pod-group-member",
        "pod-group member component 'ghost' is not defined (should be a root or child component)",
        &format!("{GANG}.podGroups[0].members[1].componentName"),
        pos(&text, "componentName: ghost"),
    );
    assert_eq!(codes(&f), vec!["undefined-pod-group-member"]);
}

#[test]
fn rule_duplicate_pod_group_name_and_member() {
    let gang = "
    gangScheduling:
      podGroups:
        - name: g
          members:
            - componentName: worker
            - componentName: worker
        - name: g
          members:
            - componentName: job
";
    let text = karta(ROOT_OK, CHILD_OK, gang);
    let f = check(&text);
    expect(
        &f,
        "duplicate-pod-group-member",
        "pod group 'g' lists member component 'worker' more than once",
        &format!("{GANG}.podGroups[0].members[1].componentName"),
        pos_nth(&text, "componentName: worker", 1),
    );
    expect(
        &f,
        "duplicate-pod-group-name",
        "pod group name 'g' is not unique",
        &format!("{GANG}.podGroups[1].name"),
        pos_nth(&text, "name: g", 1),
    );
    assert_eq!(f.len(), 2);
}

#[test]
fn rule_subgroups_and_topology() {
    let gang = "
    gangScheduling:
      podGroup:
        name: pg
        subGroups:
          - componentName: \"\"
          - componentName: ghost
          - componentName: worker
            topology: {topologyName: zone}
          - componentName: worker
        topology:
          requiredTopologyLevel: rack
";
    let text = karta(ROOT_OK, CHILD_OK, gang);
    let f = check(&text);
    let sg = format!("{GANG}.podGroup.subGroups");
    expect(
        &f,
        "empty-subgroup-component-name",
        "subgroup component name cannot be empty",
        &format!("{sg}[0].componentName"),
        pos(&text, "componentName: \"\""),
    );
    expect(
        &f,
        "undefined-subgroup-component",
        "subgroup component 'ghost' is not defined (should be a root or child component)",
        &format!("{sg}[1].componentName"),
        pos(&text, "componentName: ghost"),
    );
    expect(
        &f,
        "topology-missing-level",
        "topology must set preferredTopologyLevel or requiredTopologyLevel (or both)",
        &format!("{sg}[2].topology"),
        pos(&text, "topology: {"),
    );
    expect(
        &f,
        "duplicate-subgroup-component",
        "pod group 'pg' has more than one subgroup for component 'worker'",
        &format!("{sg}[3].componentName"),
        pos_nth(&text, "componentName: worker", 1),
    );
    expect(
        &f,
        "topology-missing-name",
        "topology must have a topologyName",
        &format!("{GANG}.podGroup.topology.topologyName"),
        pos(&text, "topology:\n          requiredTopologyLevel"),
    );
    assert_eq!(f.len(), 5, "{f:#?}");
}

fn with_suspend(body: &str) -> String {
    let root = format!("{ROOT_OK}      suspendDefinition:\n{body}");
    karta(&root, CHILD_OK, "")
}

#[test]
fn rule_empty_action_path() {
    let text = with_suspend(
        "        suspendActions:\n          - path: \"\"\n            value: \"true\"\n        resumeActions:\n          - path: .spec.suspend\n            value: \"false\"\n",
    );
    let f = check(&text);
    expect(
        &f,
        "empty-action-path",
        "component 'job' has an action with an empty path",
        &format!("{R}.suspendDefinition.suspendActions[0].path"),
        pos(&text, "path: \"\""),
    );
    assert_eq!(f.len(), 1);
}

#[test]
fn rule_empty_action_list() {
    let text = with_suspend(
        "        suspendActions:\n          - path: .spec.suspend\n            value: \"true\"\n        resumeActions: []\n",
    );
    let f = check(&text);
    expect(
        &f,
        "empty-action-list",
        "component 'job' has no resumeActions",
        &format!("{R}.suspendDefinition.resumeActions"),
        pos(&text, "resumeActions"),
    );
    assert_eq!(f.len(), 1);
}

#[test]
fn rule_invalid_action_value() {
    let text = with_suspend(
        "        suspendActions:\n          - path: .spec.suspend\n            value: Suspended\n        resumeActions:\n          - path: .spec.suspend\n            value: '\"Running\"'\n",
    );
    let f = check(&text);
    let finding = find(
        &f,
        "invalid-action-value",
        &format!("{R}.suspendDefinition.suspendActions[0].value"),
    );
    assert!(
        finding.message.starts_with(
            "component 'job' has an action value \"Suspended\" that is not valid JSON: "
        ),
        "{}",
        finding.message
    );
    assert_eq!(
        finding.location.line,
        Some(pos(&text, "value: Suspended").0)
    );
    assert_eq!(f.len(), 1);
}

#[test]
fn rule_action_paths_may_assign_but_read_paths_may_not() {
    let text = with_suspend(
        "        suspendActions:\n          - path: .spec.suspend |= true\n            value: \"true\"\n        resumeActions:\n          - path: .spec.suspend\n            value: \"false\"\n",
    );
    assert_eq!(check(&text), Vec::<Finding>::new());
    let root = ROOT_OK.replace(
        "- byPhase: Running",
        "- byExpression:\n                expression: .x |= 1\n                expectedResult: x",
    );
    let f = check(&karta(&root, CHILD_OK, ""));
    assert_eq!(codes(&f), vec!["jq-denied"]);
}

fn with_status(status: &str) -> String {
    let root = format!(
        "      name: job\n      kind: {{group: g, version: v1, kind: K}}\n      statusDefinition:\n{status}"
    );
    karta(&root, CHILD_OK, "")
}

#[test]
fn rule_empty_phase_and_conditions_paths() {
    let text = with_status(
        "        phaseDefinition:\n          path: \"\"\n        conditionsDefinition:\n          path: \" \"\n        statusMappings: {}\n",
    );
    let f = check(&text);
    expect(
        &f,
        "empty-phase-path",
        "component 'job' has an empty phaseDefinition.path",
        &format!("{R}.statusDefinition.phaseDefinition.path"),
        pos(&text, "path: \"\""),
    );
    expect(
        &f,
        "empty-conditions-path",
        "component 'job' has an empty conditionsDefinition.path",
        &format!("{R}.statusDefinition.conditionsDefinition.path"),
        pos(&text, "path: \" \""),
    );
    assert_eq!(f.len(), 2);
}

#[test]
fn rule_empty_condition_type_and_expression() {
    let text = with_status(
        "        statusMappings:\n          failed:\n            - byConditions:\n                - status: \"True\"\n              byExpression:\n                expression: \"\"\n                expectedResult: x\n",
    );
    let f = check(&text);
    expect(
        &f,
        "empty-condition-type",
        "byConditions entry has an empty type",
        &format!("{R}.statusDefinition.statusMappings.failed[0].byConditions[0].type"),
        pos(&text, "status: \"True\""),
    );
    expect(
        &f,
        "empty-expression",
        "byExpression has an empty expression",
        &format!("{R}.statusDefinition.statusMappings.failed[0].byExpression.expression"),
        pos(&text, "expression: \"\""),
    );
    assert_eq!(f.len(), 2);
}

#[test]
fn rule_empty_selector_paths() {
    let children = "
      - name: worker
        ownerRef: job
        instanceIdPath: .spec.groups[].name
        specDefinition:
          podTemplateSpecPath: .spec.template
        podSelector:
          componentInstanceSelector:
            idPath: \"\"
          replicaSelector: {}
";
    let text = karta(ROOT_OK, children, "");
    let f = check(&text);
    expect(
        &f,
        "empty-instance-selector-id-path",
        "component 'worker' has an empty componentInstanceSelector.idPath",
        &format!("{C0}.podSelector.componentInstanceSelector.idPath"),
        pos(&text, "idPath"),
    );
    expect(
        &f,
        "empty-replica-selector-key-path",
        "component 'worker' has an empty replicaSelector.keyPath",
        &format!("{C0}.podSelector.replicaSelector.keyPath"),
        pos(&text, "replicaSelector"),
    );
    assert_eq!(f.len(), 2);
}

#[test]
fn rule_no_pod_definition_warning() {
    let children = "      - name: worker\n        ownerRef: job\n";
    let text = karta(ROOT_OK, children, "");
    let f = check(&text);
    let w = expect(
        &f,
        "no-pod-definition",
        "no component has a pod definition (podTemplateSpecPath, podSpecPath or fragmentedPodSpecDefinition)",
        "spec.structureDefinition",
        pos(&text, "structureDefinition"),
    );
    assert_eq!(w.severity, Severity::Warning);
    // metadataPath alone is not a pod definition.
    let children = "      - name: worker\n        ownerRef: job\n        specDefinition:\n          metadataPath: .metadata\n";
    assert_eq!(
        codes(&check(&karta(ROOT_OK, children, ""))),
        vec!["no-pod-definition"]
    );
}

#[test]
fn rule_jq_syntax() {
    let children = CHILD_OK.replace(".spec.template", ".spec.template[");
    let text = karta(ROOT_OK, &children, "");
    let f = check(&text);
    let field = format!("{C0}.specDefinition.podTemplateSpecPath");
    let finding = find(&f, "jq-syntax", &field);
    assert!(
        finding
            .message
            .starts_with("jq expression '.spec.template[' does not parse: "),
        "{}",
        finding.message
    );
    assert_eq!(
        finding.location.expression.as_deref(),
        Some(".spec.template[")
    );
    assert!(finding.location.span.is_some());
    assert_eq!(
        (finding.location.line, finding.location.column),
        (
            Some(pos(&text, "podTemplateSpecPath").0),
            Some(pos(&text, "podTemplateSpecPath").1)
        )
    );
    assert_eq!(finding.location.component.as_deref(), Some("worker"));
}

#[test]
fn rule_jq_undefined() {
    // The reference guides' gang example uses `gpu` unquoted as a group key:
    // it parses, but names a function that does not exist. Validation
    // reports it with the others (the reference finds it only when the
    // expression first runs); `$x` is an undefined variable.
    let gang = "
    gangScheduling:
      podGroups:
        - name: g
          members:
            - componentName: worker
              groupByKeyPaths: [.a, gpu, \"$x + 1\"]
";
    let text = karta(ROOT_OK, CHILD_OK, gang);
    let f = check(&text);
    let field = format!("{GANG}.podGroups[0].members[0].groupByKeyPaths[1]");
    let finding = expect(
        &f,
        "jq-undefined",
        "jq expression 'gpu': function gpu/0 is not defined (to read a field, write .gpu; for the text, quote it: \"gpu\")",
        &field,
        pos(&text, "gpu"),
    );
    assert_eq!(finding.location.span, Some([0, 3]));
    assert_eq!(finding.severity, Severity::Error);
    let field = format!("{GANG}.podGroups[0].members[0].groupByKeyPaths[2]");
    let var = find(&f, "jq-undefined", &field);
    assert!(
        var.message.ends_with(
            "variable $x is not defined (no variables are given; bind one with '... as $x')"
        ),
        "{}",
        var.message
    );
    assert_eq!(f.len(), 2, "{f:#?}");

    // Compiling reports the same findings, located, as a validation error.
    let err = workload_lens::CompiledDefinition::from_text(&text, Limits::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Validation, "{err}");
    assert_eq!(err.findings(), f);
    // A lone expression that names an undefined function is a jq compile error.
    let e = workload_lens::Expression::compile("nosuch(1)", &Limits::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::JqCompile);
    assert!(
        e.to_string()
            .contains("function nosuch/1 is not defined (jq's builtins"),
        "{e}"
    );
}

#[test]
fn rule_jq_denied() {
    let gang = "
    gangScheduling:
      podGroups:
        - name: g
          members:
            - componentName: worker
              groupByKeyPaths: [.a, \"[range(10)]\"]
";
    let text = karta(ROOT_OK, CHILD_OK, gang);
    let f = check(&text);
    let field = format!("{GANG}.podGroups[0].members[0].groupByKeyPaths[1]");
    let finding = expect(
        &f,
        "jq-denied",
        "jq expression '[range(10)]': range is not allowed: it can produce unbounded output; read the paths you need instead",
        &field,
        pos(&text, "\"[range(10)]\""),
    );
    assert_eq!(finding.location.span, Some([1, 6]));
    assert_eq!(finding.location.expression.as_deref(), Some("[range(10)]"));
    assert_eq!(f.len(), 1);
}

#[test]
fn rule_jq_limit() {
    let long = format!(".{}", "a".repeat(100));
    let children = CHILD_OK.replace(".spec.template", &long);
    let loaded = load(&karta(ROOT_OK, &children, ""));
    let small = Limits {
        max_expression_bytes: 50,
        ..Limits::default()
    };
    let f = validate_loaded(&loaded, &small);
    let finding = find(
        &f,
        "jq-limit",
        &format!("{C0}.specDefinition.podTemplateSpecPath"),
    );
    assert!(
        finding.message
            == "jq expression over the limit maxExpressionBytes: the expression has 101 bytes, \
                more than the 50 allowed (raise the limit, or shorten the expression)",
        "{}",
        finding.message
    );
    assert_eq!(finding.location.expression.as_deref(), Some(long.as_str()));
    assert_eq!(
        validate_loaded(&loaded, &Limits::default()),
        Vec::<Finding>::new()
    );
}

#[test]
fn every_expression_field_is_checked() {
    let bad = "\"[range(1)]\"";
    let text = format!(
        "\
apiVersion: run.ai/v1alpha1
kind: Karta
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {{group: g, version: v1, kind: K}}
      instanceIdPath: {bad}
      specDefinition:
        podTemplateSpecPath: {bad}
        podSpecPath: {bad}
        metadataPath: {bad}
        fragmentedPodSpecDefinition:
          schedulerNamePath: {bad}
          labelsPath: {bad}
          annotationsPath: {bad}
          resourcesPath: {bad}
          resourceClaimsPath: {bad}
          podAffinityPath: {bad}
          nodeAffinityPath: {bad}
          containersPath: {bad}
          containerPath: {bad}
          priorityClassNamePath: {bad}
          imagePath: {bad}
      scaleDefinition:
        replicasPath: {bad}
        minReplicasPath: {bad}
        maxReplicasPath: {bad}
      statusDefinition:
        phaseDefinition: {{path: {bad}}}
        conditionsDefinition: {{path: {bad}}}
        statusMappings:
          running:
            - byExpression: {{expression: {bad}, expectedResult: x}}
          resuming:
            - byExpression: {{expression: {bad}, expectedResult: x}}
      podSelector:
        componentTypeSelector: {{keyPath: {bad}}}
        componentInstanceSelector: {{idPath: {bad}}}
        replicaSelector: {{keyPath: {bad}}}
      suspendDefinition:
        suspendActions: [{{path: {bad}, value: 'true'}}]
        resumeActions: [{{path: {bad}, value: 'false'}}]
  optimizationInstructions:
    gangScheduling:
      podGroups:
        - name: g
          members:
            - componentName: job
              groupByKeyPaths: [{bad}, .ok]
              filters: [.ok, {bad}]
"
    );
    let f = check(&text);
    // The root sets all three pod definition styles.
    let others: Vec<&str> = codes(&f)
        .into_iter()
        .filter(|c| *c != "jq-denied")
        .collect();
    assert_eq!(others, vec!["multiple-pod-spec-definitions"]);
    let fields: Vec<String> = f
        .iter()
        .filter(|x| x.code == "jq-denied")
        .map(|x| {
            assert_eq!(x.location.expression.as_deref(), Some("[range(1)]"));
            x.location.field.clone().unwrap_or_default()
        })
        .collect();
    let s = "spec.structureDefinition.rootComponent";
    let fr = format!("{s}.specDefinition.fragmentedPodSpecDefinition");
    let expected: Vec<String> = vec![
        format!("{s}.instanceIdPath"),
        format!("{s}.specDefinition.podTemplateSpecPath"),
        format!("{s}.specDefinition.podSpecPath"),
        format!("{s}.specDefinition.metadataPath"),
        format!("{fr}.schedulerNamePath"),
        format!("{fr}.labelsPath"),
        format!("{fr}.annotationsPath"),
        format!("{fr}.resourcesPath"),
        format!("{fr}.resourceClaimsPath"),
        format!("{fr}.podAffinityPath"),
        format!("{fr}.nodeAffinityPath"),
        format!("{fr}.containersPath"),
        format!("{fr}.containerPath"),
        format!("{fr}.priorityClassNamePath"),
        format!("{fr}.imagePath"),
        format!("{s}.scaleDefinition.replicasPath"),
        format!("{s}.scaleDefinition.minReplicasPath"),
        format!("{s}.scaleDefinition.maxReplicasPath"),
        format!("{s}.statusDefinition.phaseDefinition.path"),
        format!("{s}.statusDefinition.conditionsDefinition.path"),
        format!("{s}.statusDefinition.statusMappings.running[0].byExpression.expression"),
        format!("{s}.statusDefinition.statusMappings.resuming[0].byExpression.expression"),
        format!("{s}.podSelector.componentTypeSelector.keyPath"),
        format!("{s}.podSelector.componentInstanceSelector.idPath"),
        format!("{s}.podSelector.replicaSelector.keyPath"),
        format!("{s}.suspendDefinition.suspendActions[0].path"),
        format!("{s}.suspendDefinition.resumeActions[0].path"),
        format!("{GANG}.podGroups[0].members[0].groupByKeyPaths[0]"),
        format!("{GANG}.podGroups[0].members[0].filters[1]"),
    ];
    assert_eq!(fields, expected);
}

// ---------------------------------------------------------------------------
// Everything at once
// ---------------------------------------------------------------------------

/// The reference's edge case 44: duplicate names plus other errors. The
/// reference returns only the duplicate-name errors; we report everything.
#[test]
fn edge_case_44_duplicates_do_not_hide_other_errors() {
    let root = "      name: job\n      kind: {group: g, version: v1, kind: K}\n";
    let children = "
      - name: a
        ownerRef: job
        specDefinition:
          podSpecPath: .spec
      - name: a
";
    let text = karta(root, children, "");
    let f = check(&text);
    assert_eq!(
        codes(&f),
        vec![
            "root-status-definition-missing",
            "duplicate-component-name",
            "missing-owner-ref",
        ]
    );
}

/// The reference's edge case 45: a structure error plus a cycle. The
/// reference skips the cycle check; we report both.
#[test]
fn edge_case_45_cycles_are_reported_with_other_errors() {
    let root = "      name: job\n      statusDefinition: {statusMappings: {}}\n";
    let children = "
      - name: a
        ownerRef: b
        specDefinition:
          podSpecPath: .spec
      - name: b
        ownerRef: a
";
    let f = check(&karta(root, children, ""));
    assert_eq!(codes(&f), vec!["root-kind-incomplete", "ownership-cycle"]);
}

const RICH_INVALID: &str = "\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: broken
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: \"\", version: v1, kind: Service}
      ownerRef: x
      instanceIdPath: .spec.x[]
      statusDefinition:
        phaseDefinition:
          path: \"\"
        conditionsDefinition:
          path: .status.conditions | range(10)
        statusMappings:
          running:
            - byConditions:
                - type: \"\"
              byExpression:
                expression: \".a = 1\"
                expectedResult: \"x\"
    childComponents:
      - name: worker
        ownerRef: group
        fragmentedPodDefinition: {}
        specDefinition:
          podTemplateSpecPath: .spec.template[
          podSpecPath: .spec.x
        podSelector:
          componentTypeSelector:
            value: x
            matchLabels:
              \"app name\": \"bad value\"
              good: ok
          componentInstanceSelector:
            idPath: \"..\"
        suspendDefinition:
          suspendActions:
            - path: .spec.suspend
              value: \"tru\"
          resumeActions: []
      - name: group
        ownerName: worker
        ownerRef: worker
      - name: worker
        ownerRef: nope
  optimizationInstructions:
    gangScheduling:
      podGroups:
        - name: g
          members:
            - componentName: worker
              groupByKeyPaths: [del(.x)]
            - componentName: ghost
        - name: g
          members: []
      podGroup:
        name: pg
        subGroups:
          - componentName: \"\"
          - componentName: ghost
            topology: {topologyName: \"\"}
";

#[test]
fn many_rules_at_once_in_document_order() {
    let f = check(RICH_INVALID);
    assert_eq!(
        codes(&f),
        vec![
            "root-kind-incomplete",
            "root-owner-ref",
            "instance-id-path-without-selector",
            "empty-phase-path",
            "jq-denied",
            "empty-condition-type",
            "jq-denied",
            "ownership-cycle",
            "unknown-field",
            "multiple-pod-spec-definitions",
            "jq-syntax",
            "type-selector-value-without-key-path",
            "invalid-label-key",
            "invalid-label-value",
            "instance-selector-without-id-path",
            "jq-denied",
            "invalid-action-value",
            "empty-action-list",
            "unknown-field",
            "duplicate-component-name",
            "unknown-owner-ref",
            "jq-denied",
            "undefined-pod-group-member",
            "duplicate-pod-group-name",
            "empty-subgroup-component-name",
            "undefined-subgroup-component",
            "topology-missing-level",
            "topology-missing-name",
        ]
    );
    // Positions never go backwards.
    let positions: Vec<(usize, usize)> = f
        .iter()
        .map(|x| (x.location.line.unwrap_or(0), x.location.column.unwrap_or(0)))
        .collect();
    let mut sorted = positions.clone();
    sorted.sort();
    assert_eq!(positions, sorted);
    assert_eq!(errors(&f).len(), f.len() - 2);
}

#[test]
fn snapshot_rich_invalid_definition() {
    insta::assert_json_snapshot!("rich_invalid", check(RICH_INVALID));
}

/// The field is the finding's location: a jq message says once where it
/// is (front ends print the location beside the message).
#[test]
fn jq_messages_do_not_repeat_the_field() {
    let findings = check(RICH_INVALID);
    let jq: Vec<_> = findings
        .iter()
        .filter(|f| f.code.starts_with("jq-"))
        .collect();
    assert!(jq.len() >= 4, "{findings:#?}");
    for f in jq {
        let field = f.location.field.as_deref().unwrap_or_default();
        assert!(!field.is_empty(), "{f:#?}");
        assert!(!f.message.contains(field), "{f:#?}");
        assert!(f.message.starts_with("jq expression "), "{f:#?}");
    }
}

#[test]
fn snapshot_structure_errors() {
    let text = "\
apiVersion: run.ai/v1alpha1
kind: Karta
spec:
  structureDefinition:
    rootComponent:
      name: \"\"
      kind: {version: v1, kind: Thing}
    childComponents:
      - name: a
        ownerRef: a
      - name: b
        ownerRef: c
        podSelector:
          componentTypeSelector: {}
      - name: c
        ownerRef: b
      - name: a
";
    insta::assert_json_snapshot!("structure_errors", check(text));
}

#[test]
fn snapshot_resource_interface_with_newer_fields() {
    let text = "\
apiVersion: optimization.nvidia.com/v1alpha1
kind: ResourceInterface
metadata:
  name: old
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: kubeflow.org, version: v1, kind: PyTorchJob}
      statusDefinition:
        statusMappings:
          suspended:
            - byPhase: Suspended
          running:
            - byPhase: Running
      suspendDefinition:
        suspendActions: [{path: .spec.runPolicy.suspend, value: 'true'}]
        resumeActions: [{path: .spec.runPolicy.suspend, value: 'false'}]
    childComponents:
      - name: master
        ownerRef: job
        specDefinition:
          podTemplateSpecPath: .spec.pytorchReplicaSpecs.Master.template
        scaleDefinition:
          replicasPath: .spec.pytorchReplicaSpecs.Master.replicas
        podSelector:
          componentTypeSelector:
            matchLabels: {training.kubeflow.org/replica-type: master}
      - name: worker
        ownerRef: job
        specDefintion:
          podTemplateSpecPath: .spec.pytorchReplicaSpecs.Worker.template
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: all
        subGroups: [{componentName: master}, {componentName: worker}]
";
    insta::assert_json_snapshot!("resource_interface_newer_fields", check(text));
}

// ---------------------------------------------------------------------------
// Reading: unknown fields, generations, lists, documents, parse errors
// ---------------------------------------------------------------------------

#[test]
fn unknown_fields_are_warnings_with_suggestions() {
    let children = "
      - name: worker
        ownerName: job
        ownerRef: job
        specDefinition:
          fragmentedPodDefinition:
            containersPath: .spec.containers
          podTemplateSpecPth: .spec.template
          podSpecPath: .spec.template.spec
          replicasPath: .spec.replicas
        referencedComponents: []
        podTemplateSpecPath: .x
";
    let text = karta(ROOT_OK, children, "");
    let loaded = load(&text);
    let w = &loaded.warnings;
    assert!(
        w.iter()
            .all(|x| x.code == "unknown-field" && x.severity == Severity::Warning)
    );
    let f = validate_loaded(&loaded, &Limits::default());
    expect(
        &f,
        "unknown-field",
        "unknown field 'ownerName' is ignored (did you mean 'ownerRef'?)",
        &format!("{C0}.ownerName"),
        pos(&text, "ownerName"),
    );
    expect(
        &f,
        "unknown-field",
        "unknown field 'fragmentedPodDefinition' is ignored (did you mean 'fragmentedPodSpecDefinition'?)",
        &format!("{C0}.specDefinition.fragmentedPodDefinition"),
        pos(&text, "fragmentedPodDefinition"),
    );
    expect(
        &f,
        "unknown-field",
        "unknown field 'podTemplateSpecPth' is ignored (did you mean 'podTemplateSpecPath'?)",
        &format!("{C0}.specDefinition.podTemplateSpecPth"),
        pos(&text, "podTemplateSpecPth"),
    );
    expect(
        &f,
        "unknown-field",
        "unknown field 'referencedComponents' is ignored",
        &format!("{C0}.referencedComponents"),
        pos(&text, "referencedComponents"),
    );
    expect(
        &f,
        "unknown-field",
        "unknown field 'podTemplateSpecPath' is ignored (did you mean 'specDefinition.podTemplateSpecPath'?)",
        &format!("{C0}.podTemplateSpecPath"),
        pos(&text, "podTemplateSpecPath: .x"),
    );
    // A field in the wrong block of its component: where it belongs.
    expect(
        &f,
        "unknown-field",
        "unknown field 'replicasPath' is ignored (it belongs beside 'specDefinition': did you mean 'scaleDefinition.replicasPath'?)",
        &format!("{C0}.specDefinition.replicasPath"),
        pos(&text, "replicasPath"),
    );
    // Warnings come in document order.
    let lines: Vec<usize> = w.iter().filter_map(|x| x.location.line).collect();
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted);
    assert_eq!(f.len(), 6);
}

#[test]
fn unknown_metadata_and_status_fields_are_fine() {
    let text = karta(ROOT_OK, CHILD_OK, "").replace(
        "metadata:\n  name: test\n",
        "metadata:\n  name: test\n  uid: abc\n  labels: {a: b}\n  resourceVersion: \"1\"\nstatus:\n  conditions: [{type: Ready}]\n",
    );
    assert_eq!(check(&text), Vec::<Finding>::new());
}

#[test]
fn newer_generation_fields_in_resource_interface() {
    let root = "
      name: job
      kind: {group: g, version: v1, kind: K}
      statusDefinition:
        statusMappings:
          suspending:
            - byPhase: Suspending
      suspendDefinition:
        suspendActions: [{path: .spec.suspend, value: 'true'}]
        resumeActions: [{path: .spec.suspend, value: 'false'}]
";
    let gang = "    gangScheduling:\n      podGroup:\n        name: g\n";
    let text = generation(
        "optimization.nvidia.com/v1alpha1",
        "ResourceInterface",
        root,
        CHILD_OK,
        gang,
    );
    let f = check(&text);
    let msg = |field: &str| {
        format!(
            "field '{field}' belongs to the newer run.ai/v1alpha1 Karta format; it is accepted in a ResourceInterface but older consumers ignore it"
        )
    };
    expect(
        &f,
        "newer-generation-field",
        &msg("suspending"),
        &format!("{R}.statusDefinition.statusMappings.suspending"),
        pos(&text, "suspending"),
    );
    expect(
        &f,
        "newer-generation-field",
        &msg("suspendDefinition"),
        &format!("{R}.suspendDefinition"),
        pos(&text, "suspendDefinition"),
    );
    expect(
        &f,
        "newer-generation-field",
        &msg("podGroup"),
        &format!("{GANG}.podGroup"),
        pos(&text, "podGroup"),
    );
    assert!(f.iter().all(|x| x.severity == Severity::Warning));
    // The same fields in a Karta are fine.
    let karta_text = text
        .replace("optimization.nvidia.com/v1alpha1", "run.ai/v1alpha1")
        .replace("ResourceInterface", "Karta");
    assert_eq!(check(&karta_text), Vec::<Finding>::new());
}

#[test]
fn not_a_workload_definition() {
    let e = read_err("apiVersion: apps/v1\nkind: Deployment\nspec: {}\n");
    assert_eq!(e.code(), ErrorCode::Parse);
    assert_eq!(
        e.message(),
        "not a workload definition: apiVersion 'apps/v1' kind 'Deployment' (expected run.ai/v1alpha1 Karta or optimization.nvidia.com/v1alpha1 ResourceInterface)"
    );
    assert_eq!(e.location().field.as_deref(), Some("apiVersion"));
    assert_eq!((e.location().line, e.location().column), (Some(1), Some(1)));
    // Mixed generation pairs are not accepted.
    let e = read_err("apiVersion: run.ai/v1alpha1\nkind: ResourceInterface\nspec: {}\n");
    assert!(e.message().starts_with(
        "not a workload definition: apiVersion 'run.ai/v1alpha1' kind 'ResourceInterface'"
    ));
    let e = read_err("kind: Karta\n");
    assert!(
        e.message()
            .starts_with("not a workload definition: apiVersion <missing> kind 'Karta'")
    );
    // A top-level sequence is a list of definitions, each read alone.
    let e = read_err("- a\n- b\n");
    assert_eq!(
        e.message(),
        "a workload definition must be a map, found string"
    );
    assert_eq!(e.location().field.as_deref(), Some("[0]"));
}

#[test]
fn type_errors_name_the_field_and_position() {
    let children = CHILD_OK.replace(
        "          podTemplateSpecPath: .spec.template\n",
        "          podTemplateSpecPath: .spec.template\n        scaleDefinition:\n          replicasPath: 3\n",
    );
    let text = karta(ROOT_OK, &children, "");
    let e = read_err(&text);
    assert_eq!(e.code(), ErrorCode::Parse);
    assert_eq!(e.message(), "invalid type: integer 3, expected a string");
    assert_eq!(
        e.location().field.as_deref(),
        Some(format!("{C0}.scaleDefinition.replicasPath").as_str())
    );
    assert_eq!(
        (e.location().line, e.location().column),
        (
            Some(pos(&text, "replicasPath").0),
            Some(pos(&text, "replicasPath").1)
        )
    );
    let e = read_err("apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\n");
    assert_eq!(e.message(), "missing required field 'spec'");
    assert_eq!(e.location().field.as_deref(), Some("spec"));
    assert_eq!((e.location().line, e.location().column), (Some(1), Some(1)));
    let e = read_err(
        "apiVersion: run.ai/v1alpha1\nkind: Karta\nspec:\n  structureDefinition:\n    childComponents: {}\n",
    );
    assert_eq!(
        e.location().field.as_deref(),
        Some("spec.structureDefinition.childComponents")
    );
    assert_eq!(e.location().line, Some(5));
}

#[test]
fn list_documents_expand_into_their_items() {
    let item = |t: &str| {
        let mut out = String::new();
        for (i, line) in t.lines().enumerate() {
            out.push_str(if i == 0 { "  - " } else { "    " });
            out.push_str(line);
            out.push('\n');
        }
        out
    };
    let good = karta(ROOT_OK, CHILD_OK, "");
    let bad = karta(ROOT_OK, "      - name: lost\n", "");
    let text = format!(
        "apiVersion: run.ai/v1alpha1\nkind: KartaList\nitems:\n{}{}",
        item(&good),
        item(&bad)
    );
    let loaded = match read_definitions(&text, &Limits::default()) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(loaded.len(), 2);
    assert_eq!(loaded[0].document, None);
    assert_eq!(
        validate_loaded(&loaded[0], &Limits::default()),
        Vec::<Finding>::new()
    );
    let f = validate_loaded(&loaded[1], &Limits::default());
    // Field paths are relative to the item, positions are in the text.
    let lost = find(&f, "missing-owner-ref", &format!("{C0}.ownerRef"));
    assert_eq!(
        (lost.location.line, lost.location.column),
        (
            Some(pos(&text, "- name: lost").0),
            Some(pos(&text, "- name: lost").1 + 2)
        )
    );
    // `kind: List` works too; an invalid item names its path in the document.
    let broken = good.replace("ownerRef: job", "ownerRef: [job]");
    let text = format!(
        "apiVersion: v1\nkind: List\nitems:\n{}{}",
        item(&good),
        item(&broken)
    );
    let e = read_err(&text);
    assert_eq!(
        e.location().field.as_deref(),
        Some(format!("items[1].{C0}.ownerRef").as_str())
    );
    assert_eq!(
        e.location().line,
        Some(pos_nth(&text, "ownerRef: [job]", 0).0)
    );
    let e = read_err("kind: List\nitems: 3\n");
    assert_eq!(e.location().field.as_deref(), Some("items"));
    assert_eq!(e.location().line, Some(2));
    assert!(
        matches!(read_definitions("kind: List\nitems: []\n", &Limits::default()), Ok(v) if v.is_empty())
    );
}

#[test]
fn multiple_documents() {
    let good = karta(ROOT_OK, CHILD_OK, "");
    let bad = karta(ROOT_OK, "      - name: lost\n", "");
    let text = format!("{good}---\n# nothing here\n---\n{bad}");
    let loaded = match read_definitions(&text, &Limits::default()) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(loaded.len(), 2);
    assert_eq!(loaded[0].document, Some(0));
    assert_eq!(loaded[1].document, Some(2));
    let f = validate_loaded(&loaded[1], &Limits::default());
    let lost = find(&f, "missing-owner-ref", &format!("{C0}.ownerRef"));
    assert_eq!(lost.location.document, Some(2));
    assert_eq!(lost.location.line, Some(pos(&text, "- name: lost").0));
    // An error in a later document names it.
    let text = format!("{good}---\n{}", good.replace("kind: Karta", "kind: Nope"));
    let e = read_err(&text);
    assert_eq!(e.location().document, Some(1));
    assert_eq!(
        e.location().line,
        Some(pos(&text, "apiVersion").0 + good.lines().count() + 1)
    );
}

#[test]
fn json_definitions_have_positions_too() {
    let text = r#"{
  "apiVersion": "run.ai/v1alpha1",
  "kind": "Karta",
  "spec": {
    "structureDefinition": {
      "rootComponent": {"name": "job", "kind": {"group": "g", "version": "v1", "kind": "K"},
        "statusDefinition": {"statusMappings": {}}},
      "childComponents": [
        {"name": "w", "ownerRef": "nope", "specDefinition": {"podSpecPath": ".spec"}}
      ]
    }
  }
}"#;
    let f = check(text);
    expect(
        &f,
        "unknown-owner-ref",
        "child component 'w' has owner ref to non-existing component 'nope'",
        &format!("{C0}.ownerRef"),
        pos(text, "\"ownerRef\""),
    );
}

#[test]
fn parse_errors_from_text_have_positions() {
    let e = read_err("apiVersion: run.ai/v1alpha1\nkind: Karta\nspec: [\n");
    assert_eq!(e.code(), ErrorCode::Parse);
    assert!(e.location().line.is_some());
    let e = read_err("apiVersion: run.ai/v1alpha1\nkind: Karta\nkind: Karta\n");
    assert!(e.message().starts_with("duplicate mapping key \"kind\""));
    assert_eq!((e.location().line, e.location().column), (Some(3), Some(1)));
}

#[test]
fn definition_from_value_has_no_positions() {
    let value = json!({
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "spec": {"structureDefinition": {
            "rootComponent": {"name": "job", "kind": {"group": "g", "version": "v1", "kind": "K"},
                "statusDefinition": {"statusMappings": {}}, "ownerName": "x"},
            "childComponents": [{"name": "w", "specDefinition": {"podSpecPath": ".spec"}}]
        }}
    });
    let loaded = match definition_from_value(&value, &Limits::default()) {
        Ok(l) => l,
        Err(e) => panic!("{e}"),
    };
    assert!(loaded.spans.is_empty());
    assert_eq!(loaded.document, None);
    assert_eq!(loaded.warnings.len(), 1);
    assert_eq!(loaded.warnings[0].location.line, None);
    let f = validate_loaded(&loaded, &Limits::default());
    assert_eq!(codes(&f), vec!["unknown-field", "missing-owner-ref"]);
    // Deep values are refused, not recursed into.
    let mut deep = json!(1);
    for _ in 0..200 {
        deep = json!([deep]);
    }
    let mut v = value.clone();
    v["status"] = deep;
    let e = match definition_from_value(&v, &Limits::default()) {
        Ok(_) => panic!("expected a depth error"),
        Err(e) => e,
    };
    assert_eq!(e.limit(), Some("maxDepth"));
}

#[test]
fn validate_without_positions_keeps_field_order() {
    let d = load(RICH_INVALID).definition;
    let f = validate(&d, &Limits::default());
    assert!(f.iter().all(|x| x.location.line.is_none()));
    // Root first, then children, then gang scheduling.
    let firsts: Vec<&str> = f
        .iter()
        .filter_map(|x| x.location.field.as_deref())
        .map(|p| {
            if p.starts_with(R) {
                "root"
            } else if p.starts_with("spec.structureDefinition.childComponents") {
                "child"
            } else {
                "gang"
            }
        })
        .collect();
    let mut sorted = firsts.clone();
    sorted.sort_by_key(|k| match *k {
        "root" => 0,
        "child" => 1,
        _ => 2,
    });
    assert_eq!(firsts, sorted);
}

#[test]
fn explicit_nulls_are_like_absent_fields() {
    // `childComponents:` / `labels:` with nothing after them are YAML nulls;
    // like Kubernetes (Go), a null known field reads as absent.
    let text = karta(ROOT_OK, CHILD_OK, "")
        .replace("  name: test\n", "  name: test\n  labels:\n")
        .replace(
            "    rootComponent:\n",
            "    additionalChildKinds:\n    rootComponent:\n      ownerRef: null\n      instanceIdPath: ~\n",
        );
    let loaded = load(&text);
    assert!(loaded.definition.root().owner_ref.is_none());
    assert_eq!(
        validate_loaded(&loaded, &Limits::default()),
        Vec::<Finding>::new()
    );
    // A required field given as null is reported as missing.
    let e = read_err(&karta(ROOT_OK, CHILD_OK, "").replace(
        "  structureDefinition:\n    rootComponent:\n",
        "  structureDefinition:\n    rootComponent: null\n    x:\n",
    ));
    assert_eq!(e.message(), "missing required field 'rootComponent'");
    // Unknown null fields are still reported.
    let text = karta(ROOT_OK, CHILD_OK, "").replace(
        "        ownerRef: job\n",
        "        ownerRef: job\n        ownerName:\n",
    );
    assert_eq!(codes(&check(&text)), vec!["unknown-field"]);
}

#[test]
fn unknown_fields_inside_optional_lists() {
    let root = ROOT_OK.replace("- byPhase: Running", "- byPhaze: Running");
    let text = karta(&root, CHILD_OK, "");
    let f = check(&text);
    expect(
        &f,
        "unknown-field",
        "unknown field 'byPhaze' is ignored (did you mean 'byPhase'?)",
        &format!("{R}.statusDefinition.statusMappings.running[0].byPhaze"),
        pos(&text, "byPhaze"),
    );
    let root = ROOT_OK.replace("- byPhase: Running", "- byPhase: [Running]");
    let e = read_err(&karta(&root, CHILD_OK, ""));
    assert_eq!(
        e.location().field.as_deref(),
        Some(format!("{R}.statusDefinition.statusMappings.running[0].byPhase").as_str())
    );
    assert_eq!(e.message(), "invalid type: sequence, expected a string");
}
