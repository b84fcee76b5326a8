//! `metadata.emoted.look_at`, `ik` and `springs` read through the whole
//! Animation reader: what they become, their defaults, and every rule with
//! its pointer.

use serde_json::{json, Value};
use valence::math::Vec3;

use super::solvers::{IkTarget, LookTarget, SolverSettings};
use super::{parse_emote_value, EmoteFile};

/// An arm and a head, with `emoted` as `metadata.emoted`.
fn with_emoted(emoted: Value) -> Value {
    let anchor = |parent: Option<&str>, y: f64| {
        let mut node = json!({"type": "anchor",
            "transform": {"position": [0, y, 0], "rotation": [0, 0, 0], "scale": [1, 1, 1]}});
        match parent {
            Some(p) => node["parent"] = json!(p),
            None => node["space"] = json!("initiator"),
        }
        node
    };
    json!({
        "type": "animation",
        "schema_version": 4,
        "id": "test:solvers",
        "metadata": {"name": "Solvers", "emoted": emoted},
        "settings": {},
        "nodes": {
            "spine": anchor(None, 1.05),
            "neck": anchor(Some("spine"), 0.35),
            "head": anchor(Some("neck"), 0.47),
            "shoulder_r": anchor(Some("spine"), 0.35),
            "elbow_r": anchor(Some("shoulder_r"), -0.35),
            "hand_r": anchor(Some("elbow_r"), -0.35),
            "grip": anchor(Some("hand_r"), 0.0),
            "ball": anchor(None, 1.0)
        },
        "timeline": {"duration": "40t", "tracks": {}}
    })
}

fn solvers_of(emoted: Value) -> SolverSettings {
    let report = parse_emote_value(&with_emoted(emoted));
    match report.file {
        Some(EmoteFile::Animation(a)) => a.metadata.solvers,
        other => panic!("not read: {other:?} {:?}", report.problems),
    }
}

fn errors_of(emoted: Value) -> Vec<String> {
    let report = parse_emote_value(&with_emoted(emoted));
    assert!(report.file.is_none(), "refused");
    report
        .problems
        .iter()
        .map(|p| format!("{}: {}", p.pointer, p.message))
        .collect()
}

#[test]
fn a_look_at_reads_with_its_defaults() {
    let solvers = solvers_of(json!({"look_at": {"nodes": ["spine", "neck"]}}));
    let look = solvers.look_at.expect("on");
    assert_eq!(look.nodes, ["spine", "neck"]);
    assert!((look.shares[0] - 1.0 / 3.0).abs() < 1e-6 && (look.shares[1] - 2.0 / 3.0).abs() < 1e-6);
    assert_eq!(look.target, LookTarget::Look);
    assert_eq!(
        (look.yaw_limit_degrees, look.pitch_limit_degrees),
        (70.0, 50.0)
    );
    assert_eq!((look.weight, look.smoothing), (1.0, 0.5));
    let written = solvers_of(
        json!({"look_at": {"nodes": ["neck"], "target": {"node": "ball"},
        "yaw_limit": 90, "pitch_limit": 30, "weight": 0.5, "smoothing": 1, "shares": [2]}}),
    );
    let look = written.look_at.expect("on");
    assert_eq!(look.target, LookTarget::Node("ball".into()));
    assert_eq!(look.shares, [1.0]);
    assert_eq!(
        (look.yaw_limit_degrees, look.weight, look.smoothing),
        (90.0, 0.5, 1.0)
    );
    assert_eq!(
        solvers_of(json!({"look_at": {"nodes": ["neck"], "target": "partner"}}))
            .look_at
            .expect("on")
            .target,
        LookTarget::Partner
    );
    assert!(solvers_of(json!({"look_at": false})).look_at.is_none());
    assert!(
        solvers_of(json!({"look_at": {"nodes": ["neck"], "enabled": false}}))
            .look_at
            .is_none()
    );
}

#[test]
fn look_at_rules_name_their_pointer() {
    let errors = errors_of(json!({"look_at": {"nodes": ["neck", "spine"], "yaw_limit": 200}}));
    assert!(errors.contains(&"/metadata/emoted/look_at/nodes/1: look_at node `spine` must be below `neck`, the node before it (list them root-most first)".to_owned()), "{errors:?}");
    assert!(
        errors.iter().any(|e| e
            .starts_with("/metadata/emoted/look_at/yaw_limit: `yaw_limit` must be from 0 to 180")),
        "{errors:?}"
    );
    let errors = errors_of(json!({"look_at": {"nodes": ["nek"]}}));
    assert_eq!(errors, ["/metadata/emoted/look_at/nodes/0: look_at node `nek` is not a node of this Animation; did you mean `neck`?"]);
    let errors = errors_of(json!({"look_at": {"nodes": ["neck"], "target": "mouse"}}));
    assert!(
        errors[0]
            .starts_with("/metadata/emoted/look_at/target: look_at `target` `mouse` is not one of"),
        "{errors:?}"
    );
    let errors = errors_of(json!({"look_at": {"nodes": ["neck"], "target": {"node": "head"}}}));
    assert!(errors[0].contains("turns with the chain"), "{errors:?}");
    let errors = errors_of(json!({"look_at": {"nodes": []}}));
    assert!(
        errors[0].starts_with(
            "/metadata/emoted/look_at/nodes: look_at `nodes` must be an array of 1 to 4"
        ),
        "{errors:?}"
    );
}

#[test]
fn ik_chains_read_with_targets_poles_and_weights() {
    let solvers = solvers_of(json!({"ik": [
        {"chain": ["shoulder_r", "elbow_r", "hand_r"], "target": {"partner": "hand_r"}, "pole": [0, 0, -2], "weight": 0.8},
    ]}));
    let ik = &solvers.ik[0];
    assert_eq!(ik.chain, ["shoulder_r", "elbow_r", "hand_r"]);
    assert_eq!(ik.target, Some(IkTarget::Partner("hand_r".into())));
    assert_eq!(ik.pole, Some(Vec3::NEG_Z));
    assert_eq!(ik.weight, 0.8);
    let declared = solvers_of(json!({"ik": [
        {"chain": ["shoulder_r", "elbow_r", "hand_r"], "target": {"point": [0, 1, 1]}, "enabled": false, "pole": [0, 0, 0]},
    ]}));
    assert_eq!(declared.ik[0].target, None, "off: declared for later");
    assert_eq!(
        declared.ik[0].pole, None,
        "a zero pole keeps the animated plane"
    );
    let to_node = solvers_of(
        json!({"ik": [{"chain": ["shoulder_r", "elbow_r", "hand_r"], "target": {"node": "ball"}}]}),
    );
    assert_eq!(to_node.ik[0].target, Some(IkTarget::Node("ball".into())));
}

#[test]
fn ik_rules_name_their_pointer() {
    let errors = errors_of(json!({"ik": [{"chain": ["spine", "elbow_r", "hand_r"]}]}));
    assert_eq!(errors, ["/metadata/emoted/ik/0/chain/1: ik chain: `spine` must be the parent of `elbow_r` (a chain is a grandparent, its child and that child's child)"]);
    let errors = errors_of(json!({"ik": [{"chain": ["elbow_r", "hand_r", "grip"]}]}));
    assert_eq!(errors, ["/metadata/emoted/ik/0/chain/2: ik chain: `grip` sits on `hand_r` (a bone of length zero cannot bend)"]);
    let errors = errors_of(json!({"ik": [{"chain": ["shoulder_r", "elbow_r"]}]}));
    assert!(
        errors[0].starts_with("/metadata/emoted/ik/0/chain: an ik `chain` must be three node ids"),
        "{errors:?}"
    );
    let errors = errors_of(
        json!({"ik": [{"chain": ["shoulder_r", "elbow_r", "hand_r"], "target": {"node": "grip"}}]}),
    );
    assert!(
        errors[0].starts_with(
            "/metadata/emoted/ik/0/target/node: ik target node `grip` moves with the chain"
        ),
        "{errors:?}"
    );
    let errors = errors_of(json!({"ik": [
        {"chain": ["shoulder_r", "elbow_r", "hand_r"]},
        {"chain": ["shoulder_r", "elbow_r", "hand_r"]},
    ]}));
    assert_eq!(
        errors,
        ["/metadata/emoted/ik/1: two `ik` chains end at `hand_r`"]
    );
    let errors = errors_of(
        json!({"ik": [{"chain": ["shoulder_r", "elbow_r", "hand_r"], "target": {"pont": [0, 0, 0]}}]}),
    );
    assert!(errors.iter().any(|e| e.starts_with("/metadata/emoted/ik/0/target: an ik `target` must have one of")), "{errors:?}");
}

#[test]
fn springs_read_with_defaults_and_their_rules() {
    let solvers = solvers_of(
        json!({"springs": [{"node": "spine"}, {"node": "head", "axis": [0, 0, -3], "length": 0.9, "stiffness": 60, "damping": 4, "gravity": 0}]}),
    );
    let first = &solvers.springs[0];
    assert_eq!(
        (
            first.axis,
            first.length_blocks,
            first.stiffness,
            first.damping,
            first.gravity
        ),
        (Vec3::NEG_Y, 0.5, 40.0, 6.0, 9.8)
    );
    assert_eq!(solvers.springs[1].axis, Vec3::NEG_Z);
    let errors = errors_of(json!({"springs": [{"node": "head", "length": 0, "axis": [0, 0, 0]}]}));
    assert!(errors.contains(&"/metadata/emoted/springs/0/axis: a spring `axis` may not be [0, 0, 0]: it is the direction of the tip".to_owned()), "{errors:?}");
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("/metadata/emoted/springs/0/length: `length` must be above 0")),
        "{errors:?}"
    );
    let errors = errors_of(json!({"springs": [{"node": "head"}, {"node": "neck"}]}));
    assert_eq!(errors, ["/metadata/emoted/springs/1: list the spring on `neck` before the one on `head`, below it: parents are solved first"]);
    let errors = errors_of(json!({"springs": [{"node": "tail"}]}));
    assert_eq!(
        errors,
        ["/metadata/emoted/springs/0/node: spring node `tail` is not a node of this Animation"]
    );
    let errors = errors_of(json!({"lookat": {}}));
    assert!(
        errors[0]
            .starts_with("/metadata/emoted/lookat: unknown field `lookat` in `metadata.emoted`"),
        "{errors:?}"
    );
}
