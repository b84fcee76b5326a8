//! The bundled wave through the library into `emoted:animation`'s Bedrock
//! JSON (here rather than in `modded`, which does not name the library).

use std::path::PathBuf;

use serde_json::Value;

use crate::library::Library;
use crate::modded::animation_channel::bedrock_json;

#[test]
fn every_bundled_body_emote_becomes_bedrock_json_with_the_waves_arm_raised() {
    let library =
        Library::load(&[PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("emotes")]).library;
    let wave = library.get("example:wave").expect("the wave");
    let form = wave.bones.as_ref().expect("a bone form");
    let file = bedrock_json(form, "animation.emoted.example.wave");
    assert_eq!(file["format_version"], "1.8.0");
    let anim = &file["animations"]["animation.emoted.example.wave"];
    // wave.json: 40 ticks, once; shoulder_r at −115° about Z from tick 6
    // to 30 (z = +115 in Bedrock), back to rest at 36.
    assert_eq!(anim["loop"], false);
    assert_eq!(anim["animation_length"], 2.0);
    let arm = &anim["bones"]["rightArm"]["rotation"];
    for seconds in [0.3, 0.9, 1.5] {
        let z = z_at(arm, seconds);
        assert!((z - 115.0).abs() < 0.5, "{seconds}: {arm}");
    }
    assert!(
        z_at(arm, 0.0).abs() < 1e-3 && z_at(arm, 2.0).abs() < 1e-3,
        "{arm}"
    );
}

/// The z of linear `keys` (Bedrock's `{"<seconds>": [x, y, z]}`) at `seconds`.
fn z_at(keys: &Value, seconds: f64) -> f64 {
    let mut keys: Vec<(f64, f64)> = keys
        .as_object()
        .expect("keys")
        .iter()
        .map(|(t, v)| (t.parse().expect("seconds"), v[2].as_f64().expect("z")))
        .collect();
    keys.sort_by(|a, b| a.0.total_cmp(&b.0));
    let after = keys
        .iter()
        .position(|(t, _)| *t >= seconds)
        .expect("a key after");
    let (t1, z1) = keys[after];
    let Some(&(t0, z0)) = after.checked_sub(1).and_then(|i| keys.get(i)) else {
        return z1;
    };
    z0 + (z1 - z0) * (seconds - t0) / (t1 - t0)
}
