//! Reading layers: their weight, mask and blending, their states (through
//! [`super::state`]) and transitions, and state events.

use serde_json::Value;

use super::{
    numeric_parameter, state, state_index, unit_number, Blending, Layer, LayerWeight, MaskNode,
    Parameter, State, Transition, ANY_STATE, EXIT_STATE,
};
use crate::format::problem::{field, index, JsonPointer, Problems};
use crate::format::read::{self, Obj};

pub(super) fn read_layers(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    parameters: &[Parameter],
) -> Vec<Layer> {
    let Value::Array(items) = value else {
        problems.error(
            pointer,
            format!(
                "`layers` must be an array of layers, found {}",
                read::kind_of(value)
            ),
        );
        return Vec::new();
    };
    if items.is_empty() {
        problems.error(pointer, "`layers` must list at least one layer (the base)");
    }
    let mut layers: Vec<Layer> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let lp = index(pointer, i);
        let Some(layer) = read_layer(item, &lp, problems, parameters, i == 0) else {
            continue;
        };
        if layers.iter().any(|l| l.name == layer.name) {
            problems.error(
                &field(&lp, "name"),
                format!("layer names must be unique: `{}` is used twice", layer.name),
            );
        }
        layers.push(layer);
    }
    layers
}

fn read_layer(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    parameters: &[Parameter],
    base: bool,
) -> Option<Layer> {
    let mut obj = Obj::new(value, pointer, problems, "a layer")?;
    let name = obj
        .req("name", problems)
        .and_then(|(v, p)| read::nonempty_string(v, &p, problems, "layer `name`"));
    let weight = match (obj.opt("weight"), obj.opt("weight_parameter")) {
        (Some(_), Some((_, p))) => {
            problems.error(
                &p,
                "give a layer either `weight` or `weight_parameter`, not both",
            );
            None
        }
        (Some((v, p)), None) => {
            unit_number(v, &p, problems, "layer `weight`", false).map(LayerWeight::Fixed)
        }
        (None, Some((v, p))) => {
            numeric_parameter(v, &p, problems, parameters, "`weight_parameter`")
                .map(LayerWeight::Parameter)
        }
        (None, None) => Some(LayerWeight::Fixed(1.0)),
    };
    let mask = match obj.opt("mask") {
        Some((v, p)) => read_mask(v, &p, problems).map(Some),
        None => Some(None),
    };
    let blending = match obj.opt("blending") {
        Some((v, p)) => {
            let b = read::one_of(
                v,
                &p,
                problems,
                "`blending`",
                &[
                    ("override", Blending::Override),
                    ("additive", Blending::Additive),
                ],
            )?;
            if base && b == Blending::Additive {
                problems.error(&p, "the first layer is the base and cannot be additive: put additive layers after it");
            }
            Some(b)
        }
        None => Some(Blending::Override),
    };
    let states = match obj.req("states", problems) {
        Some((v, p)) => read_states(v, &p, problems, parameters),
        None => Vec::new(),
    };
    let state_names: Vec<&str> = states.iter().map(|s| s.name.as_str()).collect();
    let default_state = obj.req("default_state", problems).and_then(|(v, p)| {
        let name = read::nonempty_string(v, &p, problems, "`default_state`")?;
        state_index(&state_names, name, &p, problems, "`default_state`")
    });
    let transitions = match obj.opt("transitions") {
        Some((v, p)) => read_transitions(v, &p, problems, parameters, &state_names),
        None => Vec::new(),
    };
    obj.finish(
        problems,
        &[
            "name",
            "weight",
            "weight_parameter",
            "mask",
            "blending",
            "default_state",
            "states",
            "transitions",
        ],
    );
    Some(Layer {
        name: name?.to_owned(),
        weight: weight?,
        mask: mask?,
        blending: blending?,
        default_state: default_state?,
        states,
        transitions,
    })
}

/// `mask`: node ids, each a string or `{"node": id, "weight": w}`.
fn read_mask(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<Vec<MaskNode>> {
    let Value::Array(items) = value else {
        problems.error(pointer, "`mask` must be an array of node ids");
        return None;
    };
    if items.is_empty() {
        problems.error(
            pointer,
            "`mask` must name at least one node; leave it out to apply the layer to the whole body",
        );
        return None;
    }
    let mut nodes: Vec<MaskNode> = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        let ip = index(pointer, i);
        let read = match item {
            Value::String(_) => read::nonempty_string(item, &ip, problems, "a mask node")
                .map(|n| (n, 1.0, ip.render())),
            _ => (|| {
                let mut obj = Obj::new(item, &ip, problems, "a mask node")?;
                let node = obj.req("node", problems).and_then(|(v, p)| {
                    read::nonempty_string(v, &p, problems, "mask `node`").map(|n| (n, p.render()))
                });
                let weight = match obj.opt("weight") {
                    Some((v, p)) => unit_number(v, &p, problems, "mask `weight`", false),
                    None => Some(1.0),
                };
                obj.finish(problems, &["node", "weight"]);
                let (node, at) = node?;
                Some((node, weight?, at))
            })(),
        };
        let Some((node, weight, at)) = read else {
            ok = false;
            continue;
        };
        if nodes.iter().any(|n| n.node == node) {
            problems.error(&ip, format!("mask node `{node}` is listed twice"));
            ok = false;
            continue;
        }
        nodes.push(MaskNode {
            node: node.to_owned(),
            weight,
            pointer: at,
        });
    }
    ok.then_some(nodes)
}

fn read_states(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    parameters: &[Parameter],
) -> Vec<State> {
    let Some(obj) = Obj::new(value, pointer, problems, "`states`") else {
        return Vec::new();
    };
    if obj.entries().next().is_none() {
        problems.error(pointer, "`states` must hold at least one state");
    }
    let mut states = Vec::new();
    for (name, v) in obj.entries() {
        let sp = field(pointer, name);
        if name == ANY_STATE || name == EXIT_STATE {
            problems.error(
                &sp,
                format!("`{name}` is reserved for transitions (`any` for from any state, `exit` for the end of the emote): rename this state"),
            );
            continue;
        }
        if name.trim().is_empty() {
            problems.error(&sp, "a state name must not be empty");
            continue;
        }
        if let Some(state) = state::read_state(name, v, &sp, problems, parameters) {
            states.push(state);
        }
    }
    states
}

fn read_transitions(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    parameters: &[Parameter],
    states: &[&str],
) -> Vec<Transition> {
    let Value::Array(items) = value else {
        problems.error(pointer, "`transitions` must be an array of transitions");
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            state::read_transition(item, &index(pointer, i), problems, parameters, states)
        })
        .collect()
}
