//! Validation of `optimizationInstructions.gangScheduling`.

use crate::validate::prelude::*;

impl Validator<'_> {
    pub(crate) fn gang_scheduling(&mut self) {
        let Some(g) = self
            .def
            .spec
            .optimization_instructions
            .as_ref()
            .and_then(|o| o.gang_scheduling.as_ref())
        else {
            return;
        };
        if let Some(groups) = &g.pod_groups {
            let gp = path_push_key(GANG, "podGroups");
            let mut group_names: HashSet<&str> = HashSet::new();
            for (i, group) in groups.iter().enumerate() {
                let p = path_push_index(&gp, i);
                if !group_names.insert(group.name.as_str()) {
                    self.error(
                        DUPLICATE_POD_GROUP_NAME,
                        format!("pod group name {} is not unique", quoted(&group.name)),
                        path_push_key(&p, "name"),
                        None,
                    );
                }
                let mp = path_push_key(&p, "members");
                let mut members: HashSet<&str> = HashSet::new();
                for (j, m) in group.members.iter().enumerate() {
                    let mpath = path_push_index(&mp, j);
                    let cn = m.component_name.as_str();
                    if !self.first.contains_key(cn) {
                        self.error(
                            UNDEFINED_POD_GROUP_MEMBER,
                            format!(
                                "pod-group member component {} is not defined (should be a root or child component)",
                                quoted(cn)
                            ),
                            path_push_key(&mpath, "componentName"),
                            None,
                        );
                    }
                    if !members.insert(cn) {
                        self.error(
                            DUPLICATE_POD_GROUP_MEMBER,
                            format!(
                                "pod group {} lists member component {} more than once",
                                quoted(&group.name),
                                quoted(cn)
                            ),
                            path_push_key(&mpath, "componentName"),
                            None,
                        );
                    }
                    let kp = path_push_key(&mpath, "groupByKeyPaths");
                    for (k, e) in m.group_by_key_paths.iter().enumerate() {
                        self.expr(e, path_push_index(&kp, k), ExprMode::Read, None);
                    }
                    let fp = path_push_key(&mpath, "filters");
                    for (k, e) in m.filters.iter().enumerate() {
                        self.expr(e, path_push_index(&fp, k), ExprMode::Read, None);
                    }
                    if let Some(e) = &m.min_members_path {
                        self.expr(
                            e,
                            path_push_key(&mpath, "minMembersPath"),
                            ExprMode::Read,
                            None,
                        );
                    }
                }
            }
        }
        if let Some(pg) = &g.pod_group {
            let pp = path_push_key(GANG, "podGroup");
            let sp = path_push_key(&pp, "subGroups");
            let mut seen: HashSet<&str> = HashSet::new();
            for (i, sg) in pg.sub_groups.iter().enumerate() {
                let p = path_push_index(&sp, i);
                let cn = sg.component_name.as_str();
                let field = path_push_key(&p, "componentName");
                if blank(cn) {
                    self.error(
                        EMPTY_SUBGROUP_COMPONENT_NAME,
                        "subgroup component name cannot be empty".into(),
                        field,
                        None,
                    );
                } else {
                    if !self.first.contains_key(cn) {
                        self.error(
                            UNDEFINED_SUBGROUP_COMPONENT,
                            format!(
                                "subgroup component {} is not defined (should be a root or child component)",
                                quoted(cn)
                            ),
                            field.clone(),
                            None,
                        );
                    }
                    if !seen.insert(cn) {
                        self.error(
                            DUPLICATE_SUBGROUP_COMPONENT,
                            format!(
                                "pod group {} has more than one subgroup for component {}",
                                quoted(&pg.name),
                                quoted(cn)
                            ),
                            field,
                            None,
                        );
                    }
                }
                if let Some(t) = &sg.topology {
                    self.topology(t, path_push_key(&p, "topology"));
                }
            }
            if let Some(t) = &pg.topology {
                self.topology(t, path_push_key(&pp, "topology"));
            }
        }
    }

    fn topology(&mut self, t: &Topology, path: String) {
        if blank(&t.topology_name) {
            self.error(
                TOPOLOGY_MISSING_NAME,
                "topology must have a topologyName".into(),
                path_push_key(&path, "topologyName"),
                None,
            );
        }
        if blank(&t.preferred_topology_level) && blank(&t.required_topology_level) {
            self.error(
                TOPOLOGY_MISSING_LEVEL,
                "topology must set preferredTopologyLevel or requiredTopologyLevel (or both)"
                    .into(),
                path,
                None,
            );
        }
    }
}
