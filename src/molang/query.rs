//! The queries an emote may use (anchor-molang.md §5–6) and the plain data
//! they read, [`QueryContext`].
//!
//! Every name here is known at compile time: an unknown `q.` name is a
//! compile error, never a runtime 0.

/// Everything queries read, filled by the server each tick. Plain data: the
/// evaluator only reads it, so filling it is the caller's only cost.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryContext {
    /// `q.anim_time` and `q.life_time`: timeline time, seconds
    /// (`q.anim_time_ticks` is this × 20).
    pub anim_time_secs: f64,
    /// `q.anim_length`: timeline duration, seconds.
    pub anim_length_secs: f64,
    /// `q.delta_time`: 0.05 on normal ticks, 0 while a cycle initialises.
    pub delta_time_secs: f64,
    /// `q.loop_count`: completed loops, from 0.
    pub loop_count: f64,
    /// `q.key_frame_lerp_time`: uneased 0..1 progress between the current
    /// vector keyframe and the next; 0 outside vector evaluation.
    pub key_frame_lerp_time: f64,
    /// The initiator's state (player-state queries). Use
    /// [`PlayerState::absent`] when there is no initiator: every query reads 0.
    pub player: PlayerState,
}

impl Default for QueryContext {
    /// Time 0 with a [`PlayerState::default`] initiator and the normal tick length.
    fn default() -> Self {
        Self {
            anim_time_secs: 0.0,
            anim_length_secs: 0.0,
            delta_time_secs: 0.05,
            loop_count: 0.0,
            key_frame_lerp_time: 0.0,
            player: PlayerState::default(),
        }
    }
}

/// One item stack as the item queries see it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ItemState {
    /// Full item id such as `minecraft:crossbow`; empty for an empty slot.
    pub id: String,
    /// True for a charged crossbow.
    pub charged: bool,
}

impl ItemState {
    /// True when the slot holds something.
    pub fn is_present(&self) -> bool {
        !self.id.is_empty() && self.id != "minecraft:air"
    }
}

/// The initiator's state: one field per player-state query of
/// anchor-molang.md (§5.2–5.4, §6). Angles are degrees, distances blocks.
///
/// [`Default`] is a player standing still on the ground, alive, at full
/// health (20 of 20), emoting, with empty hands.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerState {
    /// `q.target_x_rotation`: look pitch.
    pub target_x_rotation_deg: f64,
    /// `q.target_y_rotation`: head yaw relative to the body.
    pub target_y_rotation_deg: f64,
    /// `q.body_x_rotation`: pitch.
    pub body_x_rotation_deg: f64,
    /// `q.body_y_rotation`: absolute body yaw.
    pub body_y_rotation_deg: f64,
    /// `q.head_x_rotation`: pitch.
    pub head_x_rotation_deg: f64,
    /// `q.head_y_rotation`: absolute head yaw.
    pub head_y_rotation_deg: f64,
    /// `q.eye_target_x_rotation`: eye pitch.
    pub eye_target_x_rotation_deg: f64,
    /// `q.eye_target_y_rotation`: absolute head yaw.
    pub eye_target_y_rotation_deg: f64,
    /// `q.ground_speed`: horizontal speed.
    pub ground_speed_blocks_per_sec: f64,
    /// `q.vertical_speed`: vertical speed, positive up.
    pub vertical_speed_blocks_per_sec: f64,
    /// `q.modified_distance_moved`: walk-animation position.
    pub modified_distance_moved_blocks: f64,
    /// `q.walk_distance`: accumulated distance moved.
    pub walk_distance_blocks: f64,
    /// `q.yaw_speed`: yaw change during this tick.
    pub yaw_speed_deg_per_tick: f64,
    /// `q.is_moving`.
    pub is_moving: bool,
    /// `q.is_on_ground`.
    pub is_on_ground: bool,
    /// `q.is_sneaking`.
    pub is_sneaking: bool,
    /// `q.is_sprinting`.
    pub is_sprinting: bool,
    /// `q.is_swimming`.
    pub is_swimming: bool,
    /// `q.is_gliding`.
    pub is_gliding: bool,
    /// `q.is_riding`.
    pub is_riding: bool,
    /// `q.is_using_item`.
    pub is_using_item: bool,
    /// `q.is_sleeping`.
    pub is_sleeping: bool,
    /// `q.is_emoting`.
    pub is_emoting: bool,
    /// `q.is_on_fire`.
    pub is_on_fire: bool,
    /// `q.is_in_water`.
    pub is_in_water: bool,
    /// `q.is_alive`.
    pub is_alive: bool,
    /// `q.is_spectator`.
    pub is_spectator: bool,
    /// `q.head_is_in_water`.
    pub head_is_in_water: bool,
    /// `q.is_in_lava`.
    pub is_in_lava: bool,
    /// `q.is_in_water_or_rain`.
    pub is_in_water_or_rain: bool,
    /// `q.blocking`.
    pub blocking: bool,
    /// `q.is_eating`.
    pub is_eating: bool,
    /// `q.is_jumping`.
    pub is_jumping: bool,
    /// `q.is_crawling`.
    pub is_crawling: bool,
    /// `q.is_invisible`.
    pub is_invisible: bool,
    /// `q.is_levitating`.
    pub is_levitating: bool,
    /// `q.sleep_rotation`: yaw of the bed; 0 when not sleeping.
    pub sleep_rotation_deg: f64,
    /// `q.health`: health points (2 per heart).
    pub health: f64,
    /// `q.max_health`.
    pub max_health: f64,
    /// `q.hurt_time`: ticks left on the hurt animation.
    pub hurt_time_ticks: f64,
    /// `q.death_ticks`: ticks into the death animation.
    pub death_ticks: f64,
    /// `q.invulnerable_ticks`: ticks left on the invulnerability timer.
    pub invulnerable_ticks: f64,
    /// `q.player_level`: experience level.
    pub player_level: f64,
    /// `q.item_in_use_duration`: seconds the item in use has been used.
    pub item_in_use_duration_secs: f64,
    /// `q.item_remaining_use_duration`.
    pub item_remaining_use_duration_secs: f64,
    /// `q.item_max_use_duration`.
    pub item_max_use_duration_secs: f64,
    /// `q.on_fire_time`: seconds of fire left.
    pub on_fire_time_secs: f64,
    /// `q.position(axis)`: feet position, blocks (X, Y, Z).
    pub position: [f64; 3],
    /// `q.position_delta(axis)`: movement during this tick, blocks.
    pub position_delta: [f64; 3],
    /// `q.movement_direction(axis)`: unit movement vector; zero when still.
    pub movement_direction: [f64; 3],
    /// Items by slot, indexed by [`ItemSlot::index`] (main hand, off hand,
    /// head, chest, legs, feet).
    pub items: [ItemState; ItemSlot::COUNT],
    /// `q.scoreboard('objective')`: the initiator's scores by objective name.
    pub scores: Vec<(String, f64)>,
}

impl Default for PlayerState {
    fn default() -> Self {
        Self {
            is_on_ground: true,
            is_alive: true,
            is_emoting: true,
            health: 20.0,
            max_health: 20.0,
            ..Self::absent()
        }
    }
}

impl PlayerState {
    /// No initiator (synthetic stress-test playback): every query reads 0.
    pub fn absent() -> Self {
        Self {
            target_x_rotation_deg: 0.0,
            target_y_rotation_deg: 0.0,
            body_x_rotation_deg: 0.0,
            body_y_rotation_deg: 0.0,
            head_x_rotation_deg: 0.0,
            head_y_rotation_deg: 0.0,
            eye_target_x_rotation_deg: 0.0,
            eye_target_y_rotation_deg: 0.0,
            ground_speed_blocks_per_sec: 0.0,
            vertical_speed_blocks_per_sec: 0.0,
            modified_distance_moved_blocks: 0.0,
            walk_distance_blocks: 0.0,
            yaw_speed_deg_per_tick: 0.0,
            is_moving: false,
            is_on_ground: false,
            is_sneaking: false,
            is_sprinting: false,
            is_swimming: false,
            is_gliding: false,
            is_riding: false,
            is_using_item: false,
            is_sleeping: false,
            is_emoting: false,
            is_on_fire: false,
            is_in_water: false,
            is_alive: false,
            is_spectator: false,
            head_is_in_water: false,
            is_in_lava: false,
            is_in_water_or_rain: false,
            blocking: false,
            is_eating: false,
            is_jumping: false,
            is_crawling: false,
            is_invisible: false,
            is_levitating: false,
            sleep_rotation_deg: 0.0,
            health: 0.0,
            max_health: 0.0,
            hurt_time_ticks: 0.0,
            death_ticks: 0.0,
            invulnerable_ticks: 0.0,
            player_level: 0.0,
            item_in_use_duration_secs: 0.0,
            item_remaining_use_duration_secs: 0.0,
            item_max_use_duration_secs: 0.0,
            on_fire_time_secs: 0.0,
            position: [0.0; 3],
            position_delta: [0.0; 3],
            movement_direction: [0.0; 3],
            items: Default::default(),
            scores: Vec::new(),
        }
    }

    /// The item in `slot`.
    pub fn item(&self, slot: ItemSlot) -> &ItemState {
        &self.items[slot.index()]
    }

    /// The score for `objective`, or 0 when there is none.
    pub fn score(&self, objective: &str) -> f64 {
        self.scores
            .iter()
            .find(|(name, _)| name == objective)
            .map_or(0.0, |(_, v)| *v)
    }
}

/// An item slot for the item query functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemSlot {
    /// `main_hand`, `slot.weapon`, `slot.weapon.mainhand`, `0`.
    MainHand,
    /// `off_hand`, `slot.weapon.offhand`, `1`.
    OffHand,
    /// `slot.armor.head`.
    Head,
    /// `slot.armor.chest`.
    Chest,
    /// `slot.armor.legs`.
    Legs,
    /// `slot.armor.feet`.
    Feet,
}

impl ItemSlot {
    /// How many slots there are.
    pub const COUNT: usize = 6;

    /// The index into [`PlayerState::items`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The slot a selector string names (case-insensitive).
    pub fn from_selector(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "main_hand" | "mainhand" | "slot.weapon" | "slot.weapon.mainhand" => Self::MainHand,
            "off_hand" | "offhand" | "slot.weapon.offhand" => Self::OffHand,
            "slot.armor.head" => Self::Head,
            "slot.armor.chest" => Self::Chest,
            "slot.armor.legs" => Self::Legs,
            "slot.armor.feet" => Self::Feet,
            _ => return None,
        })
    }

    /// The slot a numeric selector names: 0 is the main hand, 1 the off hand.
    pub fn from_number(value: f64) -> Option<Self> {
        if value == 0.0 {
            Some(Self::MainHand)
        } else if value == 1.0 {
            Some(Self::OffHand)
        } else {
            None
        }
    }
}

/// A scalar query: `q.name` (also accepted as `q.name()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `q.anim_time`.
    AnimTime,
    /// `q.anim_time_ticks`.
    AnimTimeTicks,
    /// `q.anim_length`.
    AnimLength,
    /// `q.delta_time`.
    DeltaTime,
    /// `q.loop_count`.
    LoopCount,
    /// `q.key_frame_lerp_time`.
    KeyFrameLerpTime,
    /// `q.life_time`.
    LifeTime,
    /// `q.target_x_rotation`.
    TargetXRotation,
    /// `q.target_y_rotation`.
    TargetYRotation,
    /// `q.body_x_rotation`.
    BodyXRotation,
    /// `q.body_y_rotation`.
    BodyYRotation,
    /// `q.head_x_rotation`.
    HeadXRotation,
    /// `q.head_y_rotation`.
    HeadYRotation,
    /// `q.eye_target_x_rotation`.
    EyeTargetXRotation,
    /// `q.eye_target_y_rotation`.
    EyeTargetYRotation,
    /// `q.ground_speed`.
    GroundSpeed,
    /// `q.vertical_speed`.
    VerticalSpeed,
    /// `q.modified_distance_moved`.
    ModifiedDistanceMoved,
    /// `q.walk_distance`.
    WalkDistance,
    /// `q.yaw_speed`.
    YawSpeed,
    /// `q.is_moving`.
    IsMoving,
    /// `q.is_on_ground`.
    IsOnGround,
    /// `q.is_sneaking`.
    IsSneaking,
    /// `q.is_sprinting`.
    IsSprinting,
    /// `q.is_swimming`.
    IsSwimming,
    /// `q.is_gliding`.
    IsGliding,
    /// `q.is_riding`.
    IsRiding,
    /// `q.is_using_item`.
    IsUsingItem,
    /// `q.is_sleeping`.
    IsSleeping,
    /// `q.is_emoting`.
    IsEmoting,
    /// `q.is_on_fire`.
    IsOnFire,
    /// `q.is_in_water`.
    IsInWater,
    /// `q.is_alive`.
    IsAlive,
    /// `q.is_spectator`.
    IsSpectator,
    /// `q.head_is_in_water`.
    HeadIsInWater,
    /// `q.is_in_lava`.
    IsInLava,
    /// `q.is_in_water_or_rain`.
    IsInWaterOrRain,
    /// `q.blocking`.
    Blocking,
    /// `q.is_eating`.
    IsEating,
    /// `q.is_jumping`.
    IsJumping,
    /// `q.is_crawling`.
    IsCrawling,
    /// `q.is_invisible`.
    IsInvisible,
    /// `q.is_levitating`.
    IsLevitating,
    /// `q.sleep_rotation`.
    SleepRotation,
    /// `q.health`.
    Health,
    /// `q.max_health`.
    MaxHealth,
    /// `q.hurt_time`.
    HurtTime,
    /// `q.death_ticks`.
    DeathTicks,
    /// `q.invulnerable_ticks`.
    InvulnerableTicks,
    /// `q.player_level`.
    PlayerLevel,
    /// `q.item_in_use_duration`.
    ItemInUseDuration,
    /// `q.item_remaining_use_duration`.
    ItemRemainingUseDuration,
    /// `q.item_max_use_duration`.
    ItemMaxUseDuration,
    /// `q.on_fire_time`.
    OnFireTime,
}

impl Scalar {
    /// Every scalar query with its name (without `q.`).
    pub const NAMES: &'static [(&'static str, Scalar)] = &[
        ("anim_time", Self::AnimTime),
        ("anim_time_ticks", Self::AnimTimeTicks),
        ("anim_length", Self::AnimLength),
        ("delta_time", Self::DeltaTime),
        ("loop_count", Self::LoopCount),
        ("key_frame_lerp_time", Self::KeyFrameLerpTime),
        ("life_time", Self::LifeTime),
        ("target_x_rotation", Self::TargetXRotation),
        ("target_y_rotation", Self::TargetYRotation),
        ("body_x_rotation", Self::BodyXRotation),
        ("body_y_rotation", Self::BodyYRotation),
        ("head_x_rotation", Self::HeadXRotation),
        ("head_y_rotation", Self::HeadYRotation),
        ("eye_target_x_rotation", Self::EyeTargetXRotation),
        ("eye_target_y_rotation", Self::EyeTargetYRotation),
        ("ground_speed", Self::GroundSpeed),
        ("vertical_speed", Self::VerticalSpeed),
        ("modified_distance_moved", Self::ModifiedDistanceMoved),
        ("walk_distance", Self::WalkDistance),
        ("yaw_speed", Self::YawSpeed),
        ("is_moving", Self::IsMoving),
        ("is_on_ground", Self::IsOnGround),
        ("is_sneaking", Self::IsSneaking),
        ("is_sprinting", Self::IsSprinting),
        ("is_swimming", Self::IsSwimming),
        ("is_gliding", Self::IsGliding),
        ("is_riding", Self::IsRiding),
        ("is_using_item", Self::IsUsingItem),
        ("is_sleeping", Self::IsSleeping),
        ("is_emoting", Self::IsEmoting),
        ("is_on_fire", Self::IsOnFire),
        ("is_in_water", Self::IsInWater),
        ("is_alive", Self::IsAlive),
        ("is_spectator", Self::IsSpectator),
        ("head_is_in_water", Self::HeadIsInWater),
        ("is_in_lava", Self::IsInLava),
        ("is_in_water_or_rain", Self::IsInWaterOrRain),
        ("blocking", Self::Blocking),
        ("is_eating", Self::IsEating),
        ("is_jumping", Self::IsJumping),
        ("is_crawling", Self::IsCrawling),
        ("is_invisible", Self::IsInvisible),
        ("is_levitating", Self::IsLevitating),
        ("sleep_rotation", Self::SleepRotation),
        ("health", Self::Health),
        ("max_health", Self::MaxHealth),
        ("hurt_time", Self::HurtTime),
        ("death_ticks", Self::DeathTicks),
        ("invulnerable_ticks", Self::InvulnerableTicks),
        ("player_level", Self::PlayerLevel),
        ("item_in_use_duration", Self::ItemInUseDuration),
        (
            "item_remaining_use_duration",
            Self::ItemRemainingUseDuration,
        ),
        ("item_max_use_duration", Self::ItemMaxUseDuration),
        ("on_fire_time", Self::OnFireTime),
    ];

    /// The query named `name` (without `q.`, lowercase).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, q)| *q)
    }

    /// Whether `q.name(x)` with one (ignored) argument is accepted, as
    /// Bedrock's `q.head_x_rotation(0)` is.
    pub(crate) fn takes_ignored_argument(self) -> bool {
        matches!(self, Self::HeadXRotation | Self::HeadYRotation)
    }

    /// The query's value in `ctx`; booleans are 1 or 0.
    pub fn read(self, ctx: &QueryContext) -> f64 {
        let p = &ctx.player;
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        match self {
            Self::AnimTime | Self::LifeTime => ctx.anim_time_secs,
            Self::AnimTimeTicks => ctx.anim_time_secs * 20.0,
            Self::AnimLength => ctx.anim_length_secs,
            Self::DeltaTime => ctx.delta_time_secs,
            Self::LoopCount => ctx.loop_count,
            Self::KeyFrameLerpTime => ctx.key_frame_lerp_time,
            Self::TargetXRotation => p.target_x_rotation_deg,
            Self::TargetYRotation => p.target_y_rotation_deg,
            Self::BodyXRotation => p.body_x_rotation_deg,
            Self::BodyYRotation => p.body_y_rotation_deg,
            Self::HeadXRotation => p.head_x_rotation_deg,
            Self::HeadYRotation => p.head_y_rotation_deg,
            Self::EyeTargetXRotation => p.eye_target_x_rotation_deg,
            Self::EyeTargetYRotation => p.eye_target_y_rotation_deg,
            Self::GroundSpeed => p.ground_speed_blocks_per_sec,
            Self::VerticalSpeed => p.vertical_speed_blocks_per_sec,
            Self::ModifiedDistanceMoved => p.modified_distance_moved_blocks,
            Self::WalkDistance => p.walk_distance_blocks,
            Self::YawSpeed => p.yaw_speed_deg_per_tick,
            Self::IsMoving => flag(p.is_moving),
            Self::IsOnGround => flag(p.is_on_ground),
            Self::IsSneaking => flag(p.is_sneaking),
            Self::IsSprinting => flag(p.is_sprinting),
            Self::IsSwimming => flag(p.is_swimming),
            Self::IsGliding => flag(p.is_gliding),
            Self::IsRiding => flag(p.is_riding),
            Self::IsUsingItem => flag(p.is_using_item),
            Self::IsSleeping => flag(p.is_sleeping),
            Self::IsEmoting => flag(p.is_emoting),
            Self::IsOnFire => flag(p.is_on_fire),
            Self::IsInWater => flag(p.is_in_water),
            Self::IsAlive => flag(p.is_alive),
            Self::IsSpectator => flag(p.is_spectator),
            Self::HeadIsInWater => flag(p.head_is_in_water),
            Self::IsInLava => flag(p.is_in_lava),
            Self::IsInWaterOrRain => flag(p.is_in_water_or_rain),
            Self::Blocking => flag(p.blocking),
            Self::IsEating => flag(p.is_eating),
            Self::IsJumping => flag(p.is_jumping),
            Self::IsCrawling => flag(p.is_crawling),
            Self::IsInvisible => flag(p.is_invisible),
            Self::IsLevitating => flag(p.is_levitating),
            Self::SleepRotation => p.sleep_rotation_deg,
            Self::Health => p.health,
            Self::MaxHealth => p.max_health,
            Self::HurtTime => p.hurt_time_ticks,
            Self::DeathTicks => p.death_ticks,
            Self::InvulnerableTicks => p.invulnerable_ticks,
            Self::PlayerLevel => p.player_level,
            Self::ItemInUseDuration => p.item_in_use_duration_secs,
            Self::ItemRemainingUseDuration => p.item_remaining_use_duration_secs,
            Self::ItemMaxUseDuration => p.item_max_use_duration_secs,
            Self::OnFireTime => p.on_fire_time_secs,
        }
    }

    /// Sets the field this query reads (booleans: non-zero is true).
    /// `q.anim_time_ticks` sets the time in ticks; `q.life_time` is
    /// `q.anim_time`. For tools such as `emoted molang --set q.health=4`.
    pub fn write(self, ctx: &mut QueryContext, value: f64) {
        let p = &mut ctx.player;
        let b = value != 0.0;
        match self {
            Self::AnimTime | Self::LifeTime => ctx.anim_time_secs = value,
            Self::AnimTimeTicks => ctx.anim_time_secs = value / 20.0,
            Self::AnimLength => ctx.anim_length_secs = value,
            Self::DeltaTime => ctx.delta_time_secs = value,
            Self::LoopCount => ctx.loop_count = value,
            Self::KeyFrameLerpTime => ctx.key_frame_lerp_time = value,
            Self::TargetXRotation => p.target_x_rotation_deg = value,
            Self::TargetYRotation => p.target_y_rotation_deg = value,
            Self::BodyXRotation => p.body_x_rotation_deg = value,
            Self::BodyYRotation => p.body_y_rotation_deg = value,
            Self::HeadXRotation => p.head_x_rotation_deg = value,
            Self::HeadYRotation => p.head_y_rotation_deg = value,
            Self::EyeTargetXRotation => p.eye_target_x_rotation_deg = value,
            Self::EyeTargetYRotation => p.eye_target_y_rotation_deg = value,
            Self::GroundSpeed => p.ground_speed_blocks_per_sec = value,
            Self::VerticalSpeed => p.vertical_speed_blocks_per_sec = value,
            Self::ModifiedDistanceMoved => p.modified_distance_moved_blocks = value,
            Self::WalkDistance => p.walk_distance_blocks = value,
            Self::YawSpeed => p.yaw_speed_deg_per_tick = value,
            Self::IsMoving => p.is_moving = b,
            Self::IsOnGround => p.is_on_ground = b,
            Self::IsSneaking => p.is_sneaking = b,
            Self::IsSprinting => p.is_sprinting = b,
            Self::IsSwimming => p.is_swimming = b,
            Self::IsGliding => p.is_gliding = b,
            Self::IsRiding => p.is_riding = b,
            Self::IsUsingItem => p.is_using_item = b,
            Self::IsSleeping => p.is_sleeping = b,
            Self::IsEmoting => p.is_emoting = b,
            Self::IsOnFire => p.is_on_fire = b,
            Self::IsInWater => p.is_in_water = b,
            Self::IsAlive => p.is_alive = b,
            Self::IsSpectator => p.is_spectator = b,
            Self::HeadIsInWater => p.head_is_in_water = b,
            Self::IsInLava => p.is_in_lava = b,
            Self::IsInWaterOrRain => p.is_in_water_or_rain = b,
            Self::Blocking => p.blocking = b,
            Self::IsEating => p.is_eating = b,
            Self::IsJumping => p.is_jumping = b,
            Self::IsCrawling => p.is_crawling = b,
            Self::IsInvisible => p.is_invisible = b,
            Self::IsLevitating => p.is_levitating = b,
            Self::SleepRotation => p.sleep_rotation_deg = value,
            Self::Health => p.health = value,
            Self::MaxHealth => p.max_health = value,
            Self::HurtTime => p.hurt_time_ticks = value,
            Self::DeathTicks => p.death_ticks = value,
            Self::InvulnerableTicks => p.invulnerable_ticks = value,
            Self::PlayerLevel => p.player_level = value,
            Self::ItemInUseDuration => p.item_in_use_duration_secs = value,
            Self::ItemRemainingUseDuration => p.item_remaining_use_duration_secs = value,
            Self::ItemMaxUseDuration => p.item_max_use_duration_secs = value,
            Self::OnFireTime => p.on_fire_time_secs = value,
        }
    }
}

/// A query function: `q.name(args)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Function {
    /// `q.any(value, c1, ...)`: 1 if any candidate equals `value`.
    Any,
    /// `q.all(value, c1, ...)`: 1 if every candidate equals `value`.
    All,
    /// `q.approx_eq(value, c1, ...)`: 1 if every candidate is within
    /// 1e-7 × max(1, |a|, |b|) of `value`.
    ApproxEq,
    /// `q.in_range(value, min, max)`: inclusive.
    InRange,
    /// `q.count(...)`: how many arguments (there are no arrays).
    Count,
    /// `q.position(axis)`.
    Position,
    /// `q.position_delta(axis)`.
    PositionDelta,
    /// `q.movement_direction(axis)`.
    MovementDirection,
    /// `q.is_item_equipped([slot])`.
    IsItemEquipped,
    /// `q.item_is_charged([slot])`.
    ItemIsCharged,
    /// `q.is_item_name_any(slot, 'ns:id', ...)`.
    IsItemNameAny,
    /// `q.scoreboard('objective')`.
    Scoreboard,
}

impl Function {
    /// The query function named `name` (without `q.`).
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "any" => Self::Any,
            "all" => Self::All,
            "approx_eq" => Self::ApproxEq,
            "in_range" => Self::InRange,
            "count" => Self::Count,
            "position" => Self::Position,
            "position_delta" => Self::PositionDelta,
            "movement_direction" => Self::MovementDirection,
            "is_item_equipped" => Self::IsItemEquipped,
            "item_is_charged" => Self::ItemIsCharged,
            "is_item_name_any" => Self::IsItemNameAny,
            "scoreboard" => Self::Scoreboard,
            _ => return None,
        })
    }

    /// The accepted argument counts, as (min, max, words for errors).
    pub(crate) fn arity(self) -> (usize, usize, &'static str) {
        match self {
            Self::Any | Self::All | Self::ApproxEq => (2, usize::MAX, "at least 2 arguments"),
            Self::InRange => (3, 3, "3 arguments"),
            Self::Count => (0, usize::MAX, "any number of arguments"),
            Self::Position | Self::PositionDelta | Self::MovementDirection => {
                (1, 1, "1 argument (the axis: 0, 1 or 2)")
            }
            Self::IsItemEquipped | Self::ItemIsCharged => (0, 1, "0 or 1 argument (a slot)"),
            Self::IsItemNameAny => (2, usize::MAX, "a slot and at least 1 item id"),
            Self::Scoreboard => (1, 1, "1 argument (an objective name)"),
        }
    }
}
