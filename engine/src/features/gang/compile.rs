//! Compiling `gangScheduling`.

use crate::component::Comp;
use crate::error::Result;
use crate::expr::{Ctx, Expr};
use crate::model::Definition;

/// Compiled gang-scheduling instructions.
#[derive(Debug, Default)]
pub(crate) struct Gang {
    /// `podGroups`: (name, members).
    pub groups: Vec<(String, Vec<Member>)>,
    /// `podGroup` (subgroups and topology).
    pub v2: Option<crate::model::PodGroupV2>,
    /// Per component index: candidate (group, member) pairs, own component
    /// first, then ancestors nearest first.
    pub candidates: Vec<Vec<(usize, usize)>>,
}
/// A compiled pod-group member.
#[derive(Debug)]
pub(crate) struct Member {
    /// Its index in the definition's `members` list.
    pub index: usize,
    pub component: usize,
    pub keys: Vec<Expr>,
    pub filters: Vec<Expr>,
    /// `minMembersPath`: instance id -> minimum, over the workload.
    pub min_members: Option<Expr>,
}
/// The size of one candidate (group, member) pair.
const CANDIDATE_BYTES: usize = std::mem::size_of::<(usize, usize)>();

/// The compiled gang instructions of a definition (`None` without any).
pub(crate) fn compile(ctx: &Ctx<'_>, def: &Definition, comps: &[Comp]) -> Result<Option<Gang>> {
    let Some(gs) = def
        .spec
        .optimization_instructions
        .as_ref()
        .and_then(|o| o.gang_scheduling.as_ref())
    else {
        return Ok(None);
    };
    let base = "spec.optimizationInstructions.gangScheduling";
    let mut gang = Gang {
        v2: gs.pod_group.clone(),
        ..Gang::default()
    };
    // Components by name (the first of a name), so each member is looked
    // up, not searched for.
    let mut by_name: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(comps.len());
    for (i, c) in comps.iter().enumerate() {
        by_name.entry(c.name.as_str()).or_insert(i);
    }
    for (gi, g) in gs.pod_groups.iter().flatten().enumerate() {
        let mut members = Vec::new();
        for (mi, m) in g.members.iter().enumerate() {
            let mf = format!("{base}.podGroups[{gi}].members[{mi}]");
            let Some(&component) = by_name.get(m.component_name.as_str()) else {
                continue;
            };
            let mut keys = Vec::new();
            for (ki, k) in m.group_by_key_paths.iter().enumerate() {
                if let Some(e) = ctx.opt(Some(k), format!("{mf}.groupByKeyPaths[{ki}]"))? {
                    keys.push(e);
                }
            }
            let mut filters = Vec::new();
            for (fi, f) in m.filters.iter().enumerate() {
                if let Some(e) = ctx.opt(Some(f), format!("{mf}.filters[{fi}]"))? {
                    filters.push(e);
                }
            }
            let min_members =
                ctx.opt(m.min_members_path.as_ref(), format!("{mf}.minMembersPath"))?;
            members.push(Member {
                index: mi,
                component,
                keys,
                filters,
                min_members,
            });
        }
        gang.groups.push((g.name.clone(), members));
    }
    // Candidates: walk each component and its ancestors; own members first,
    // then ancestors' (nearest first), each in group then member order. The
    // members of each component are gathered once (in group then member
    // order), and each walk marks the components it has met, so a walk
    // costs its length (at most the tree's depth, bounded when the
    // definition is compiled) and stops at a repeat (a cycle, which
    // validation refuses). The lists are charged to the call's memory: a
    // root with many members above many components would otherwise ask for
    // their product.
    let mut own: Vec<Vec<(usize, usize)>> = vec![Vec::new(); comps.len()];
    for (gi, (_, members)) in gang.groups.iter().enumerate() {
        for (mi, m) in members.iter().enumerate() {
            if let Some(list) = own.get_mut(m.component) {
                list.push((gi, mi));
            }
        }
    }
    let mut met = vec![usize::MAX; comps.len()];
    for ci in 0..comps.len() {
        let mut cands = Vec::new();
        let mut cur = Some(ci);
        while let Some(x) = cur {
            match met.get_mut(x) {
                Some(m) if *m != ci => *m = ci,
                _ => break,
            }
            crate::budget::memory(own[x].len().saturating_mul(CANDIDATE_BYTES))?;
            cands.extend_from_slice(&own[x]);
            cur = comps[x].parent;
        }
        gang.candidates.push(cands);
    }
    Ok(Some(gang))
}
