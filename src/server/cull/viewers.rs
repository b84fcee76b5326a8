//! Which cells a viewer sees, and in which bands it gets each cell's
//! playbacks ("Distance bands" and "The byte budget" in the module docs).

use std::collections::HashMap;

use valence::prelude::*;

use super::arrivals::SpawnBudget;
use super::{CatchUps, DisplayCells, ViewerCells};
use crate::playback::schedule::{band_for_distance, COARSEST_BAND, DISPLAY_BANDS};
use crate::server::config::Config;
use crate::server::display_bands::{BandStreams, CellBands};
use crate::server::events::{BoneViewer, EmoteDisplay};
use crate::server::resource_pack::PackStatus;
use crate::server::storage::PlayerChoices;

/// How often the band streams' bytes are measured and every viewer's bands
/// are checked against its budget, in ticks (a twentieth of the viewers
/// each tick, so the checks do not all land on one tick).
pub const BUDGET_PERIOD_TICKS: u32 = 20;

/// A viewer's nearest emotes that are never drawn coarser for its budget.
pub const NEAREST_KEPT_EMOTES: u32 = 20;

/// A viewer whose budget moved emotes to coarser bands keeps them there
/// until its bytes at its distance bands would be under this share of the
/// budget (so a crowd near the budget does not flap between bands).
const RESTORE_SHARE: f64 = 0.8;

/// Demotions aim this far under the budget, for the same reason.
const DEMOTE_TO_SHARE: f64 = 0.9;

/// What the byte budget knows of each cell: the bytes a second written to
/// each of its band streams over the last period, and which playbacks have
/// displays in it.
#[derive(Resource, Debug, Default)]
pub struct BandTraffic {
    /// Bytes a second per cell layer, per band.
    rates: HashMap<Entity, [f64; DISPLAY_BANDS]>,
    /// The owners of the playbacks per cell layer, ascending.
    owners: HashMap<Entity, Vec<Entity>>,
    ticks: u32,
}

impl BandTraffic {
    /// Band `band`'s bytes a second in the cell whose layer is `cell`.
    pub fn rate(&self, cell: Entity, band: usize) -> f64 {
        self.rates
            .get(&cell)
            .and_then(|r| r.get(band))
            .copied()
            .unwrap_or(0.0)
    }

    /// The owners of the playbacks with displays in `cell`, ascending.
    fn owners(&self, cell: Entity) -> &[Entity] {
        self.owners.get(&cell).map_or(&[], Vec::as_slice)
    }

    /// How many playbacks have displays in `cell`.
    fn playbacks(&self, cell: Entity) -> u32 {
        u32::try_from(self.owners(cell).len()).unwrap_or(u32::MAX)
    }
}

/// Every [`BUDGET_PERIOD_TICKS`]: the band streams' bytes a second since
/// the last period, and the playbacks of each cell.
pub(super) fn measure_band_traffic(
    mut traffic: ResMut<BandTraffic>,
    mut streams: ResMut<BandStreams>,
    displays: Query<(&EmoteDisplay, &EntityLayerId)>,
) {
    traffic.ticks += 1;
    if traffic.ticks < BUDGET_PERIOD_TICKS {
        return;
    }
    let per_second = 20.0 / f64::from(traffic.ticks);
    traffic.ticks = 0;
    traffic.rates = streams
        .take_bytes()
        .into_iter()
        .map(|(cell, bytes)| (cell, bytes.map(|b| b as f64 * per_second)))
        .collect();
    // Distinct (cell, playback) pairs, sorted: a crowd of 1,000 in one cell
    // is 16,000 displays, too many to look each owner up in a list.
    let mut pairs: Vec<(Entity, Entity)> = displays
        .iter()
        .map(|(display, layer)| (layer.0, display.owner))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut owners: HashMap<Entity, Vec<Entity>> = HashMap::new();
    for (cell, owner) in pairs {
        owners.entry(cell).or_default().push(owner);
    }
    traffic.owners = owners;
}

/// What cell visibility reads and writes of a client.
type Viewer = (
    Entity,
    Ref<'static, Position>,
    &'static mut VisibleEntityLayers,
    &'static mut ViewerCells,
    Option<Ref<'static, PackStatus>>,
    Option<Ref<'static, BoneViewer>>,
    Option<Ref<'static, PlayerChoices>>,
);

/// One cell a viewer is in reach of, and the band it gets.
#[derive(Clone, Copy, Debug)]
pub(super) struct Reached {
    /// The cell's layer.
    pub(super) cell: Entity,
    /// The horizontal distance to the cell's chunk column, blocks.
    pub(super) distance_blocks: f64,
    /// The band its distance allows.
    pub(super) natural_band: usize,
    /// The bands it gets.
    pub(super) bands: CellBands,
}

pub(super) fn show_cells_in_range(
    mut cells: ResMut<DisplayCells>,
    traffic: Res<BandTraffic>,
    mut catch_ups: ResMut<CatchUps>,
    config: Res<Config>,
    layers: Query<&EntityLayer>,
    mut clients: Query<Viewer, With<Client>>,
    mut reached: Local<Vec<Reached>>,
) {
    let everyone = cells.changed || config.is_changed();
    cells.changed = false;
    if cells.by_key.is_empty() {
        return;
    }
    let scale = config.emotes.display_view_scale;
    let near_blocks = config.emotes.tolerance_near_blocks;
    let budget = config.emotes.viewer_bytes_per_second as f64;
    for (client, position, mut visible, mut viewer_cells, pack, bone_viewer, choices) in
        &mut clients
    {
        // `/emote parts off` shows heads, as to a viewer without the pack.
        let pack_changed = pack.as_ref().is_some_and(|p| p.is_changed())
            || choices.as_ref().is_some_and(|c| c.is_changed());
        let became_bone_viewer = bone_viewer.as_ref().is_some_and(|b| b.is_added());
        // This tick's share of the viewers is checked against the budget.
        let budget_turn = client.index() % BUDGET_PERIOD_TICKS == traffic.ticks;
        if !everyone
            && !budget_turn
            && !position.is_changed()
            && !pack_changed
            && !became_bone_viewer
            && !viewer_cells.arrivals_waiting()
        {
            continue;
        }
        let pack_loaded =
            PlayerChoices::sees_parts(choices.as_deref(), pack.is_some_and(|p| p.is_loaded()));
        let bone_viewer = bone_viewer.is_some();
        reached.clear();
        for (key, cell) in &cells.by_key {
            let reach = key.reach_blocks(scale);
            let distance_squared = key.distance_squared(position.0);
            let wanted = key.admits(pack_loaded, bone_viewer)
                && visible.0.contains(&key.world)
                && distance_squared <= reach * reach;
            if wanted {
                let distance_blocks = distance_squared.sqrt();
                let natural_band = band_for_distance(distance_blocks, near_blocks);
                reached.push(Reached {
                    cell: cell.layer,
                    distance_blocks,
                    natural_band,
                    bands: CellBands::uniform(natural_band),
                });
            } else if visible.0.contains(&cell.layer) {
                visible.0.remove(&cell.layer);
                viewer_cells.forget(cell.layer);
            }
        }
        if budget > 0.0 {
            let demoted = reached.iter().any(|r| {
                viewer_cells
                    .of(r.cell)
                    .is_some_and(|bands| bands.band > r.natural_band)
            });
            fit_budget(&mut reached, &traffic, budget, demoted);
        }
        // Cells new to the viewer come nearest first, within its spawn
        // budget (a stable sort: at one distance, the budget's order).
        reached.sort_by(|a, b| a.distance_blocks.total_cmp(&b.distance_blocks));
        let mut spawns = SpawnBudget::new(config.emotes.viewer_spawns_per_tick);
        for r in reached.iter() {
            if !visible.0.contains(&r.cell) && !spawns.admit(displays_in(&cells, &layers, r.cell)) {
                continue;
            }
            show_cell(client, &mut visible, &mut viewer_cells, r, &mut catch_ups);
        }
        if viewer_cells.arrivals_waiting() != spawns.refused() {
            viewer_cells.set_arrivals_waiting(spawns.refused());
        }
    }
}

/// How many displays the cell whose layer is `cell` holds (as of the last
/// tick's layer update).
fn displays_in(cells: &DisplayCells, layers: &Query<&EntityLayer>, cell: Entity) -> usize {
    match (cells.key_of(cell), layers.get(cell)) {
        (Some(key), Ok(layer)) => layer.entities_at(key.chunk).count(),
        _ => 0,
    }
}

/// Moves the farthest cells of `reached` to the coarsest band until the
/// viewer's band bytes fit `budget` (aiming [`DEMOTE_TO_SHARE`] under it),
/// never the nearest [`NEAREST_KEPT_EMOTES`] playbacks: nearest cell first
/// (at the same distance, the one with more playbacks), and where they end
/// inside a cell, its first playbacks in entity order; the rest of that
/// cell is the last to move. A viewer already `demoted` stays so until its
/// distance bands alone would be under [`RESTORE_SHARE`] of the budget.
pub(super) fn fit_budget(
    reached: &mut [Reached],
    traffic: &BandTraffic,
    budget: f64,
    demoted: bool,
) {
    let natural: f64 = reached
        .iter()
        .map(|r| traffic.rate(r.cell, r.natural_band))
        .sum();
    let limit = if demoted {
        budget * RESTORE_SHARE
    } else {
        budget
    };
    if natural <= limit {
        return;
    }
    // Nearest first; at the same distance the cell with more playbacks
    // first (a crowd's own cell before a few stray nodes in its column).
    reached.sort_by(|a, b| {
        a.distance_blocks
            .total_cmp(&b.distance_blocks)
            .then_with(|| traffic.playbacks(b.cell).cmp(&traffic.playbacks(a.cell)))
    });
    // The first cell not wholly kept, and how many of its playbacks are.
    let mut kept_emotes = 0;
    let mut first_movable = reached.len();
    for (index, r) in reached.iter_mut().enumerate() {
        let playbacks = traffic.playbacks(r.cell);
        if kept_emotes + playbacks > NEAREST_KEPT_EMOTES {
            let kept = NEAREST_KEPT_EMOTES - kept_emotes;
            let owners = traffic.owners(r.cell);
            r.bands.kept_through = (kept as usize)
                .checked_sub(1)
                .and_then(|last| owners.get(last))
                .copied();
            first_movable = index;
            break;
        }
        kept_emotes += playbacks;
    }
    let mut total = natural;
    for r in reached[first_movable..].iter_mut().rev() {
        if total <= budget * DEMOTE_TO_SHARE {
            break;
        }
        if r.bands.band < COARSEST_BAND {
            // A split cell moves only its playbacks past the kept ones.
            let playbacks = traffic.playbacks(r.cell);
            let moved = match r.bands.kept_through {
                Some(last) if playbacks > 0 => {
                    let kept = traffic.owners(r.cell).partition_point(|o| *o <= last);
                    f64::from(playbacks - kept as u32) / f64::from(playbacks)
                }
                _ => 1.0,
            };
            let saved = traffic.rate(r.cell, r.bands.band) - traffic.rate(r.cell, COARSEST_BAND);
            total -= saved * moved;
            r.bands.band = COARSEST_BAND;
        }
    }
    // A cell kept whole, or moved whole, is in one band.
    for r in reached.iter_mut() {
        if r.bands.kept_through.is_none() || r.bands.band == r.bands.kept_band {
            r.bands = CellBands::uniform(r.bands.band);
        }
    }
}

/// Shows a cell's layer and records its bands; a client new to the cell
/// is caught up ([`CatchUps`]).
fn show_cell(
    client: Entity,
    visible: &mut VisibleEntityLayers,
    viewer_cells: &mut ViewerCells,
    r: &Reached,
    catch_ups: &mut CatchUps,
) {
    let arrived = !visible.0.contains(&r.cell);
    if arrived {
        visible.0.insert(r.cell);
    }
    if viewer_cells.of(r.cell) != Some(r.bands) {
        viewer_cells.set(r.cell, r.bands);
    }
    if arrived {
        catch_ups.arrived.push((client, r.cell, r.bands));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` owners for cell `cell`: entities 1000·cell + 1, + 2, ...
    fn owners_of(cell: u32, count: u32) -> Vec<Entity> {
        (1..=count)
            .map(|i| Entity::from_raw(1000 * cell + i))
            .collect()
    }

    /// Sets cell `cell`'s playbacks to `count`.
    fn set_playbacks(traffic: &mut BandTraffic, cell: Entity, count: u32) {
        traffic.owners.insert(cell, owners_of(cell.index(), count));
    }

    /// Cells 0..n, cell i at 10·i blocks, at band 0, each with `playbacks`
    /// playbacks and band rates 1000, 600, 400, 200 bytes a second.
    fn crowd(n: u32, playbacks: u32) -> (Vec<Reached>, BandTraffic) {
        let mut traffic = BandTraffic::default();
        let reached = (0..n)
            .map(|i| {
                let cell = Entity::from_raw(i);
                traffic.rates.insert(cell, [1000.0, 600.0, 400.0, 200.0]);
                set_playbacks(&mut traffic, cell, playbacks);
                Reached {
                    cell,
                    distance_blocks: f64::from(i) * 10.0,
                    natural_band: 0,
                    bands: CellBands::uniform(0),
                }
            })
            .collect();
        (reached, traffic)
    }

    /// Each cell's band for the playbacks it does not keep apart.
    fn bands(reached: &[Reached]) -> Vec<usize> {
        reached.iter().map(|r| r.bands.band).collect()
    }

    #[test]
    fn the_farthest_cells_go_coarsest_first_until_under_the_budget() {
        let (mut reached, traffic) = crowd(10, 5);
        // 10,000 B/s at band 0; a budget of 8,000 aims at 7,200: four
        // cells at 200 instead of 1000 save 3,200.
        fit_budget(&mut reached, &traffic, 8000.0, false);
        assert_eq!(
            bands(&reached),
            vec![0, 0, 0, 0, 0, 0, 3, 3, 3, 3],
            "{reached:?}"
        );
        assert!(reached.iter().all(|r| r.bands.kept_through.is_none()));
        // Within the budget: nothing moves.
        let (mut reached, traffic) = crowd(10, 5);
        fit_budget(&mut reached, &traffic, 10_000.0, false);
        assert!(reached.iter().all(|r| r.bands == CellBands::uniform(0)));
    }

    #[test]
    fn the_nearest_twenty_emotes_never_go_coarser() {
        // 7 playbacks a cell: the nearest two cells hold 14, the third 7
        // more, of which the first 6 are kept.
        let (mut reached, traffic) = crowd(10, 7);
        fit_budget(&mut reached, &traffic, 1.0, false);
        assert_eq!(bands(&reached), vec![0, 0, 3, 3, 3, 3, 3, 3, 3, 3]);
        let third = reached[2].bands;
        assert_eq!(third.kept_band, 0);
        assert_eq!(third.kept_through, Some(owners_of(2, 7)[5]));
        let kept: usize = reached
            .iter()
            .map(|r| {
                let owners = traffic.owners(r.cell);
                owners.iter().filter(|o| r.bands.band_of(**o) == 0).count()
            })
            .sum();
        assert_eq!(kept, 20, "exactly the nearest 20 at band 0");
        // All in one cell: its first 20 are kept, the rest go coarsest.
        let (mut reached, traffic) = crowd(1, 500);
        fit_budget(&mut reached, &traffic, 1.0, false);
        let owners = owners_of(0, 500);
        let only = reached[0].bands;
        assert_eq!(only.kept_through, Some(owners[19]));
        assert!(owners[..20].iter().all(|o| only.band_of(*o) == 0));
        assert!(owners[20..]
            .iter()
            .all(|o| only.band_of(*o) == COARSEST_BAND));
        // At the same distance the crowd's cell comes before a stray one.
        let (mut reached, mut traffic) = crowd(2, 1);
        reached[1].distance_blocks = 0.0;
        let crowd_cell = reached[1].cell;
        set_playbacks(&mut traffic, crowd_cell, 30);
        fit_budget(&mut reached, &traffic, 1.0, false);
        for r in reached.iter() {
            let first = traffic.owners(r.cell)[0];
            let kept = r.cell == crowd_cell;
            assert_eq!(r.bands.band_of(first) == 0, kept, "{reached:?}");
        }
    }

    #[test]
    fn a_split_cell_moves_only_its_share() {
        // One cell of 40 at 1000 B/s in band 0 and 200 in band 3: moving
        // its 20 unkept playbacks saves half of 800. A budget of 700 aims
        // at 630: 600 gets there.
        let (mut reached, traffic) = crowd(1, 40);
        fit_budget(&mut reached, &traffic, 700.0, false);
        assert_eq!(reached[0].bands.band, COARSEST_BAND);
        assert!(reached[0].bands.kept_through.is_some());
        // With a second, farther cell of 40 the far one goes first and
        // suffices (2,000 down to 1,200 under a budget of 1,400 aiming at
        // 1,260), so the near one stays whole.
        let (mut reached, traffic) = crowd(2, 40);
        fit_budget(&mut reached, &traffic, 1400.0, false);
        assert_eq!(reached[0].bands, CellBands::uniform(0), "{reached:?}");
        assert_eq!(reached[1].bands, CellBands::uniform(COARSEST_BAND));
    }

    #[test]
    fn a_demoted_viewer_stays_so_until_well_under_the_budget() {
        // 30,000 B/s at band 0, budget 33,000: it fits, but a viewer
        // already demoted needs its distance bands under 26,400 to come
        // back, so it keeps one cell (past the nearest 20) coarse.
        let (mut reached, traffic) = crowd(30, 1);
        fit_budget(&mut reached, &traffic, 33_000.0, true);
        let coarse = reached
            .iter()
            .filter(|r| r.bands.band == COARSEST_BAND)
            .count();
        assert_eq!(coarse, 1, "{reached:?}");
        assert_eq!(reached[29].bands.band, COARSEST_BAND, "the farthest");
        let (mut reached, traffic) = crowd(30, 1);
        fit_budget(&mut reached, &traffic, 33_000.0, false);
        assert!(reached.iter().all(|r| r.bands.band == 0));
    }
}
