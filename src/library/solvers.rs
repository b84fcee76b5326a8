//! An Animation's declared solvers ([`crate::format::solvers`]) by rig
//! node index, as [`crate::anim::solve::Solvers`]: what playback runs
//! after each sampled pose. Validation already checked every node and
//! chain, so a name that is not in the rig (which cannot happen) drops
//! its solver rather than failing.

use crate::anim::solve::{
    Effector, IkSolver, LookAtChain, LookSource, Solvers, SpringJoint, TwoBoneChain,
};
use crate::anim::Rig;
use crate::format::solvers::{IkTarget, LookTarget, SolverSettings};

/// Compiles `settings` against `rig`.
pub fn compile_solvers(settings: &SolverSettings, rig: &Rig) -> Solvers {
    let index = |id: &str| rig.node_index(id);
    let look_at = settings.look_at.as_ref().and_then(|look| {
        let nodes: Option<Vec<usize>> = look.nodes.iter().map(|id| index(id)).collect();
        let mut cumulative = 0.0;
        let cumulative_shares = look
            .shares
            .iter()
            .map(|share| {
                cumulative += share;
                cumulative
            })
            .collect();
        let source = match &look.target {
            LookTarget::Look => LookSource::OwnLook,
            LookTarget::Partner => LookSource::Partner,
            LookTarget::NearestPlayer => LookSource::NearestPlayer,
            LookTarget::Node(id) => LookSource::Node(index(id)?),
        };
        let chain = LookAtChain {
            nodes: nodes?,
            cumulative_shares,
            yaw_limit: look.yaw_limit_degrees.to_radians(),
            pitch_limit: look.pitch_limit_degrees.to_radians(),
            weight: look.weight,
            smoothing: look.smoothing,
        };
        Some((chain, source))
    });
    let ik = settings
        .ik
        .iter()
        .filter_map(|ik| {
            let [root, mid, end] = [&ik.chain[0], &ik.chain[1], &ik.chain[2]].map(|id| index(id));
            let effector = match &ik.target {
                None => Effector::None,
                Some(IkTarget::Node(id)) => Effector::Node(index(id)?),
                Some(IkTarget::Partner(id)) => Effector::Partner(index(id)?),
                Some(IkTarget::Point(p)) => Effector::Point(*p),
            };
            Some(IkSolver {
                chain: TwoBoneChain {
                    root: root?,
                    mid: mid?,
                    end: end?,
                    pole: ik.pole,
                    weight: ik.weight,
                },
                effector,
            })
        })
        .collect();
    let springs = settings
        .springs
        .iter()
        .filter_map(|s| {
            Some(SpringJoint {
                node: index(&s.node)?,
                axis: s.axis,
                length_blocks: s.length_blocks,
                stiffness: s.stiffness,
                damping: s.damping,
                gravity: s.gravity,
            })
        })
        .collect();
    Solvers {
        look_at,
        ik,
        springs,
    }
}
