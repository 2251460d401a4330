//! Validation of `specDefinition`: the pod template, pod spec or fragments of a component.

use crate::validate::prelude::*;

impl<'a> Validator<'a> {
    pub(crate) fn check_pods(&mut self, c: &'a ComponentDefinition, cx: &ComponentCx<'_>) {
        let name = cx.name;
        let comp = Some(cx.name);
        let key = |k: &str| path_push_key(cx.path, k);
        if let Some(sd) = &c.spec_definition {
            let sp = key("specDefinition");
            let styles = [
                sd.pod_template_spec_path.is_some(),
                sd.pod_spec_path.is_some(),
                sd.fragmented_pod_spec_definition.is_some(),
            ];
            if styles.iter().filter(|s| **s).count() > 1 {
                self.error(
                    MULTIPLE_POD_SPEC_DEFINITIONS,
                    format!(
                        "component {} has multiple pod spec definitions",
                        quoted(name)
                    ),
                    sp.clone(),
                    comp,
                );
            }
            self.opt_expr(
                sd.pod_template_spec_path.as_ref(),
                path_push_key(&sp, "podTemplateSpecPath"),
                comp,
            );
            self.opt_expr(
                sd.pod_spec_path.as_ref(),
                path_push_key(&sp, "podSpecPath"),
                comp,
            );
            self.opt_expr(
                sd.metadata_path.as_ref(),
                path_push_key(&sp, "metadataPath"),
                comp,
            );
            if let Some(f) = &sd.fragmented_pod_spec_definition {
                let fp = path_push_key(&sp, "fragmentedPodSpecDefinition");
                let fields = [
                    ("schedulerNamePath", &f.scheduler_name_path),
                    ("labelsPath", &f.labels_path),
                    ("annotationsPath", &f.annotations_path),
                    ("resourcesPath", &f.resources_path),
                    ("resourceClaimsPath", &f.resource_claims_path),
                    ("podAffinityPath", &f.pod_affinity_path),
                    ("nodeAffinityPath", &f.node_affinity_path),
                    ("containersPath", &f.containers_path),
                    ("containerPath", &f.container_path),
                    ("priorityClassNamePath", &f.priority_class_name_path),
                    ("imagePath", &f.image_path),
                ];
                for (k, e) in fields {
                    self.opt_expr(e.as_ref(), path_push_key(&fp, k), comp);
                }
            }
        }
    }
}
