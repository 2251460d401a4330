//! One component of a definition, compiled: each feature's part of it
//! (pods, scale, status, suspend, selectors), and the component tree
//! (owners and depth).

use crate::error::{Error, Location, Result};
use crate::expr::{Ctx, Expr};
use crate::limits::Limits;
use crate::model::ComponentDefinition;
use crate::preview::{PREVIEW_BYTES, head};
use crate::resolved::TreeNode;

/// One component of a compiled definition.
#[derive(Debug)]
pub(crate) struct Comp {
    pub name: String,
    pub def: ComponentDefinition,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// The names of `children`, in order (what results show).
    pub child_names: Vec<String>,
    pub ids: Option<Expr>,
    pub pod: crate::pods::PodDef,
    pub metadata: Option<Expr>,
    pub scale: Option<crate::scale::ScaleDef>,
    pub status: Option<crate::status::StatusDef>,
    /// Compiled suspend and resume actions.
    pub suspend: Option<crate::suspend::Actions>,
    /// `podSelector.componentTypeSelector`.
    pub type_selector: Option<crate::selectors::TypeSelector>,
    /// `podSelector.componentInstanceSelector.idPath`.
    pub instance_selector: Option<Expr>,
    /// `podSelector.replicaSelector.keyPath`.
    pub replica_selector: Option<Expr>,
}

/// The component tree below component `root` of `comps`, built without
/// recursion: nodes are made in reverse depth-first order, so each node's
/// children are complete when it is made. A component met twice (an
/// ownership cycle, which validation refuses) is left out the second time.
pub(crate) fn build_tree(comps: &[Comp], root: usize) -> TreeNode {
    let n = comps.len();
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut todo = vec![root];
    while let Some(i) = todo.pop() {
        if i >= n || std::mem::replace(&mut seen[i], true) {
            continue;
        }
        order.push(i);
        todo.extend(comps[i].children.iter().rev().copied());
    }
    let mut built: Vec<Option<TreeNode>> = (0..n).map(|_| None).collect();
    for &i in order.iter().rev() {
        let children = comps[i]
            .children
            .iter()
            .filter_map(|c| built.get_mut(*c).and_then(Option::take))
            .collect();
        built[i] = Some(TreeNode {
            component: comps[i].name.clone(),
            children,
        });
    }
    built
        .get_mut(root)
        .and_then(Option::take)
        .unwrap_or_else(|| TreeNode {
            component: String::new(),
            children: Vec::new(),
        })
}

fn component_field(index: usize) -> String {
    if index == 0 {
        "spec.structureDefinition.rootComponent".into()
    } else {
        format!("spec.structureDefinition.childComponents[{}]", index - 1)
    }
}

/// Compile component `index` (0 is the root) of a definition.
pub(crate) fn compile(ctx: &Ctx<'_>, index: usize, d: &ComponentDefinition) -> Result<Comp> {
    let field = component_field(index);
    let ids = ctx.opt(
        d.instance_id_path.as_ref(),
        format!("{field}.instanceIdPath"),
    )?;
    let (pod, metadata) = crate::pods::compile(ctx, &field, d)?;
    let scale = crate::scale::compile(ctx, &field, d)?;
    let status = crate::status::compile(ctx, &field, d)?;
    let suspend = crate::suspend::compile(ctx, &field, d)?;
    let (type_selector, instance_selector, replica_selector) =
        crate::selectors::compile(ctx, &field, d)?;
    Ok(Comp {
        name: d.name.clone(),
        def: d.clone(),
        parent: None,
        children: Vec::new(),
        child_names: Vec::new(),
        ids,
        pod,
        metadata,
        scale,
        status,
        suspend,
        type_selector,
        instance_selector,
        replica_selector,
    })
}

/// The deepest component tree a definition may have: `maxDepth / 4` levels
/// below the root component (32 with the default `maxDepth` of 128; at most
/// 128, a quarter of the ceiling [`crate::HARD_MAX_DEPTH`]).
///
/// The resolved structure nests two JSON levels per tree level (a node's
/// `children` array and the child node), plus a few above the root, so a
/// tree within the bound gives JSON at most about `maxDepth / 2 + 3`
/// levels deep: within `maxDepth` itself, within serde_json's default
/// recursion limit (128) under the default limits, and within what every
/// runtime's serializer and the engine's own recursive serialization,
/// comparison and drop of [`TreeNode`] handle on a 1 MiB stack; the gang
/// rules (subtree scales, ancestor candidates) walk at most as deep.
///
/// Compiling refuses a definition whose ownership chains are deeper (a
/// `limit` error naming `maxDepth`, at the `ownerRef` of the first
/// component, in definition order, one level past the bound), and every
/// resolve checks it again against the limits the definition evaluates
/// with (see [`CompiledDefinition::with_limits`]), before any work.
pub(crate) fn max_tree_depth(limits: &Limits) -> usize {
    limits.effective().max_depth / 4
}

/// The depth of every component below the root (the root and any other
/// component without an owner: 0), given each component's owner, without
/// recursion. Each component's chain is walked up to the first component
/// whose depth is already known, so every component is walked once:
/// linear in the number of components. Components on an ownership cycle
/// (which validation refuses) get `usize::MAX`.
pub(crate) fn component_depths(parents: &[Option<usize>]) -> Vec<usize> {
    let n = parents.len();
    let mut depth: Vec<Option<usize>> = vec![None; n];
    let mut on_walk = vec![false; n];
    let mut walk: Vec<usize> = Vec::new();
    for start in 0..n {
        let mut cur = start;
        // Depth of the topmost component of the walk.
        let top = loop {
            if let Some(d) = depth[cur] {
                break d.saturating_add(1);
            }
            if on_walk[cur] {
                break usize::MAX;
            }
            on_walk[cur] = true;
            walk.push(cur);
            match parents[cur].filter(|&p| p < n) {
                Some(p) => cur = p,
                None => break 0,
            }
        };
        let mut d = top;
        for &c in walk.iter().rev() {
            depth[c] = Some(d);
            on_walk[c] = false;
            d = d.saturating_add(1);
        }
        walk.clear();
    }
    depth.into_iter().map(|d| d.unwrap_or(0)).collect()
}

/// The owner of every component (none for the root, index 0): the first
/// component named by its `ownerRef`, found through a map of names, so
/// linking is linear in the number of components.
pub(crate) fn owners(defs: &[crate::model::ComponentDefinition]) -> Vec<Option<usize>> {
    let mut by_name: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(defs.len());
    for (i, d) in defs.iter().enumerate() {
        by_name.entry(d.name.as_str()).or_insert(i);
    }
    defs.iter()
        .enumerate()
        .map(|(i, d)| {
            if i == 0 {
                return None;
            }
            by_name
                .get(d.owner_ref.as_deref().unwrap_or_default())
                .copied()
        })
        .collect()
}

/// The `ownerRef` field of component `index` (0 is the root).
fn owner_ref_field(index: usize) -> String {
    if index == 0 {
        "spec.structureDefinition.rootComponent.ownerRef".into()
    } else {
        format!(
            "spec.structureDefinition.childComponents[{}].ownerRef",
            index - 1
        )
    }
}

/// The typed `maxDepth` error when the component tree given by `parents`
/// is deeper than [`max_tree_depth`]: located at the `ownerRef` of the
/// first component (in definition order) one level past the bound. Linear
/// in the number of components.
pub(crate) fn check_tree_depth(
    parents: &[Option<usize>],
    name: impl Fn(usize) -> String,
    limits: &Limits,
) -> Result<()> {
    let bound = max_tree_depth(limits);
    let depths = component_depths(parents);
    if depths.iter().all(|&d| d <= bound) {
        return Ok(());
    }
    let first = depths
        .iter()
        .position(|&d| d == bound + 1)
        .or_else(|| depths.iter().position(|&d| d > bound))
        .unwrap_or(0);
    let component = name(first);
    Err(Error::limit_error(
        "maxDepth",
        format!(
            "component '{}{}' is more than {bound} levels below the root component: \
             ownership chains may be at most maxDepth / 4 = {bound} levels deep \
             (maxDepth {}), so that the resolved component tree nests within the limit",
            head(&component, PREVIEW_BYTES),
            if component.len() > PREVIEW_BYTES {
                "..."
            } else {
                ""
            },
            limits.effective().max_depth
        ),
    )
    .at(Location {
        field: Some(owner_ref_field(first)),
        ..Location::default()
    })
    .in_component(&component, None))
}
