#!/usr/bin/env node
// emoted's test client: one mineflayer bot (Minecraft 1.20.1) that joins a
// server, runs a JSON plan of steps, and prints what it receives as JSON
// lines on stdout. The Rust tests (tests/common/mod.rs) parse these lines.
//
//   node tests/client/bot.js '{"port":25565,"steps":[{"wait_spawn":true}]}'
//   node tests/client/bot.js plan.json
//   node tests/client/bot.js < plan.json          (or "-" as the argument)
//
// The plan, the steps and every event are described in README.md beside
// this file. Exit code 0: the plan ran. Exit code 1: it failed (a step
// failed, the connection ended unexpectedly, or the plan timed out); the
// last line on stdout is then {"event":"fail","message":...} and the
// message is also written to stderr. Exit code 2: the plan itself is bad.
'use strict'

const fs = require('fs')

const T0 = Date.now()

// ---------------------------------------------------------------- output

function jsonSafe (_key, value) {
  if (typeof value === 'bigint') {
    // Keep exact values; small ones become plain numbers.
    const n = Number(value)
    return Number.isSafeInteger(n) ? n : value.toString()
  }
  if (value && value.type === 'Buffer' && Array.isArray(value.data)) {
    return Buffer.from(value.data).toString('hex')
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value)
  return value
}

let closed = false // after done/fail nothing more is printed
function emit (event, fields) {
  if (closed) return
  const line = JSON.stringify({ event, t: Date.now() - T0, ...fields }, jsonSafe)
  process.stdout.write(line + '\n')
}

let finished = false
let packetBytes = null // by packet name, when the plan says "count_bytes"
function finish (code, message) {
  if (finished) return
  finished = true
  if (packetBytes !== null) emit('packet_bytes', { by_name: packetBytes })
  if (code === 0) {
    emit('done', {})
  } else {
    emit('fail', { message })
    process.stderr.write(`bot.js: ${message}\n`)
  }
  closed = true
  try {
    if (bot && !ended) bot.quit()
  } catch (_) {}
  // stdout to a pipe is synchronous on Linux; give the socket a moment to
  // send its FIN so the server sees a clean disconnect.
  setTimeout(() => process.exit(code), 100)
}

// ---------------------------------------------------------------- the plan

function readPlan () {
  const arg = process.argv[2]
  let text
  if (arg === undefined || arg === '-') {
    text = fs.readFileSync(0, 'utf8')
  } else if (arg.trimStart().startsWith('{')) {
    text = arg
  } else {
    text = fs.readFileSync(arg, 'utf8')
  }
  const plan = JSON.parse(text)
  if (typeof plan !== 'object' || plan === null) throw new Error('the plan must be a JSON object')
  if (!Number.isInteger(plan.port)) throw new Error('the plan needs an integer "port"')
  if (plan.steps !== undefined && !Array.isArray(plan.steps)) throw new Error('"steps" must be an array')
  const resourcePack = plan.resource_pack || 'ignore'
  if (!RESOURCE_PACK_MODES.includes(resourcePack)) throw new Error(`"resource_pack" must be one of ${RESOURCE_PACK_MODES.join(', ')}`)
  return {
    host: plan.host || '127.0.0.1',
    port: plan.port,
    username: plan.username || 'bot',
    version: plan.version || '1.20.1',
    timeout_ms: plan.timeout_ms || 30000,
    record_packets: plan.record_packets || [],
    count_bytes: plan.count_bytes === true,
    quiet: plan.quiet === true,
    forwarding: plan.forwarding || null,
    resource_pack: resourcePack,
    steps: plan.steps || []
  }
}

// ---------------------------------------------------------------- proxy forwarding
//
// A proxy sits between a player and emoted in the "bungeecord" and
// "velocity" modes. These write exactly what each proxy sends the backend,
// from their documented formats, so a test can be the proxy:
//
// - {"mode":"bungeecord","ip":"203.0.113.7","uuid":"<32 hex>","properties":[{name,value,signature?}]}:
//   the handshake's server address becomes host\0ip\0uuid\0properties-JSON
//   ("properties" left out: no fourth part, as an offline-mode proxy sends);
// - {"mode":"bungeecord_raw","address":"..."}: any handshake address at all;
// - {"mode":"velocity","secret":"...","ip":"...","uuid":"...","name"?:"...","version"?:1,"properties"?:[...]}:
//   answers the velocity:player_info login request with the HMAC-SHA256
//   signed player info;
// - {"mode":"velocity_silent"}: never answers that request.
// Without "forwarding" the client is an ordinary one (it answers a login
// plugin request with "not understood", as the vanilla client does).

function bungeeHost (f) {
  let host = `${f.host || 'localhost'}\0${f.ip}\0${String(f.uuid).replace(/-/g, '')}`
  if (f.properties !== undefined) host += `\0${JSON.stringify(f.properties)}`
  return host
}

function writeVarInt (value) {
  const out = []
  let v = value >>> 0
  do {
    let byte = v & 0x7f
    v >>>= 7
    if (v !== 0) byte |= 0x80
    out.push(byte)
  } while (v !== 0)
  return Buffer.from(out)
}

function writeString (text) {
  const bytes = Buffer.from(String(text), 'utf8')
  return Buffer.concat([writeVarInt(bytes.length), bytes])
}

function velocityAnswer (f, username) {
  const crypto = require('crypto')
  const parts = [
    writeVarInt(f.version === undefined ? 1 : f.version),
    writeString(f.ip),
    Buffer.from(String(f.uuid).replace(/-/g, ''), 'hex'),
    writeString(f.name || username)
  ]
  const props = f.properties || []
  parts.push(writeVarInt(props.length))
  for (const p of props) {
    parts.push(writeString(p.name), writeString(p.value))
    if (p.signature !== undefined && p.signature !== null) {
      parts.push(Buffer.from([1]), writeString(p.signature))
    } else {
      parts.push(Buffer.from([0]))
    }
  }
  const body = Buffer.concat(parts)
  const signature = crypto.createHmac('sha256', f.secret).update(body).digest()
  return Buffer.concat([signature, body])
}

function forwardingOptions (f) {
  if (!f) return {}
  if (f.mode === 'bungeecord') return { fakeHost: bungeeHost(f) }
  if (f.mode === 'bungeecord_raw') return { fakeHost: f.address }
  if (f.mode === 'velocity' || f.mode === 'velocity_silent') return {}
  throw new Error(`unknown forwarding mode ${f.mode}`)
}

function answerVelocity (client, f, username) {
  if (!f || (f.mode !== 'velocity' && f.mode !== 'velocity_silent')) return
  client.removeAllListeners('login_plugin_request')
  client.on('login_plugin_request', (packet) => {
    record('login_plugin_request', { channel: packet.channel, message_id: packet.messageId })
    if (f.mode === 'velocity_silent') return
    client.write('login_plugin_response', {
      messageId: packet.messageId,
      data: velocityAnswer(f, username)
    })
  })
}

let plan = null

const mineflayer = require('mineflayer')
const { handleResourcePacks, MODES: RESOURCE_PACK_MODES } = require('./resource_pack')
const { Vec3 } = require('vec3')
const nbt = require('prismarine-nbt')

// ---------------------------------------------------------------- metadata names (1.20.1)

// Base Entity fields, for every entity.
const ENTITY_FIELDS = {
  0: 'flags',
  1: 'air_ticks',
  2: 'custom_name',
  3: 'custom_name_visible',
  4: 'silent',
  5: 'no_gravity',
  6: 'pose',
  7: 'ticks_frozen'
}
// Display (1.20.1 order: no teleport_duration yet).
const DISPLAY_FIELDS = {
  ...ENTITY_FIELDS,
  8: 'start_interpolation',
  9: 'interpolation_duration',
  10: 'translation',
  11: 'scale',
  12: 'left_rotation',
  13: 'right_rotation',
  14: 'billboard',
  15: 'brightness',
  16: 'view_range',
  17: 'shadow_radius',
  18: 'shadow_strength',
  19: 'width',
  20: 'height',
  21: 'glow_color_override'
}
const FIELDS_BY_TYPE = {
  item_display: { ...DISPLAY_FIELDS, 22: 'item', 23: 'item_display' },
  block_display: { ...DISPLAY_FIELDS, 22: 'block_state' },
  text_display: {
    ...DISPLAY_FIELDS,
    22: 'text',
    23: 'line_width',
    24: 'background',
    25: 'text_opacity',
    26: 'text_flags'
  },
  interaction: { ...ENTITY_FIELDS, 8: 'width', 9: 'height', 10: 'response' }
}

const GAME_MODES = ['survival', 'creative', 'adventure', 'spectator']

// ---------------------------------------------------------------- the bot

let bot
let ended = false
let expectingEnd = false
let loginPacket = null
let teleportSeen = false
let health = null
let mineflayerSpawn = false
let selfId = null
const entityTypes = new Map() // entity id -> type name
const entityPos = new Map() // entity id -> {x, y, z, yaw, pitch}
const listeners = new Set() // functions called with every emitted event (for wait_for)
let registry = null // prismarine-registry for 1.20.1
let ChatMessage = null
let Block = null

function useRegistry (r) {
  registry = r
  ChatMessage = require('prismarine-chat')(r)
  Block = require('prismarine-block')(r)
}

// With "quiet": true, the entity, block, window and plugin-message events
// are not printed (steps still wait for them): a crowd of bots in a long
// run prints only what it says, hears and how it ends.
const NOISY_EVENTS = new Set([
  'spawn_entity', 'entity_metadata', 'entity_move', 'entity_destroy',
  'entity_head_rotation', 'set_passengers', 'plugin_message', 'block',
  'window_open', 'window_items', 'window_slot', 'window_close', 'packet'
])
function record (event, fields) {
  if (!(plan && plan.quiet && NOISY_EVENTS.has(event))) emit(event, fields)
  const ev = { event, ...fields }
  for (const l of [...listeners]) l(ev)
}

function angle (byte) {
  return (byte * 360) / 256
}

function chatText (json) {
  if (json === undefined || json === null) return null
  try {
    const parsed = typeof json === 'string' ? JSON.parse(json) : json
    return ChatMessage ? new ChatMessage(parsed).toString() : String(json)
  } catch (_) {
    return String(json)
  }
}

function chatJson (json) {
  if (typeof json !== 'string') return json === undefined ? null : json
  try {
    return JSON.parse(json)
  } catch (_) {
    return json
  }
}

function itemValue (v) {
  if (!v || v.present === false || v.itemId === undefined) return null
  const info = registry.items[v.itemId]
  let tag = null
  if (v.nbtData) {
    try {
      tag = nbt.simplify(v.nbtData)
    } catch (_) {
      tag = v.nbtData
    }
  }
  return {
    id: info ? `minecraft:${info.name}` : null,
    item_id: v.itemId,
    count: v.itemCount,
    nbt: tag
  }
}

// A window slot as a player reads it: the item, the count, and the name
// and lore of its display tag as plain text.
function windowItem (v) {
  const item = itemValue(v)
  if (!item) return null
  const display = item.nbt && item.nbt.display
  return {
    id: item.id,
    count: item.count,
    name: display && display.Name ? chatText(display.Name) : null,
    lore: display && Array.isArray(display.Lore) ? display.Lore.map((l) => chatText(l)) : [],
    glint: !!(item.nbt && item.nbt.Enchantments)
  }
}

// The last window_items packet of each window id, for click_window.
const lastWindowItems = {}

function blockValue (stateId) {
  const block = registry.blocksByStateId[stateId]
  let properties = {}
  try {
    properties = Block.fromStateId(stateId, 0).getProperties()
  } catch (_) {}
  return {
    state_id: stateId,
    name: block ? `minecraft:${block.name}` : null,
    properties
  }
}

// Turns a metadata entry into the value put under its name in "fields".
function fieldValue (entry) {
  const v = entry.value
  switch (entry.type) {
    case 'vector3':
      return [v.x, v.y, v.z]
    case 'quaternion':
      return [v.x, v.y, v.z, v.w]
    case 'item_stack':
      return itemValue(v)
    case 'block_state':
      return blockValue(v)
    case 'component':
    case 'optional_component':
      return v === undefined || v === null ? null : chatText(v)
    default:
      return v === undefined ? null : v
  }
}

// Names and decodes the entries of an entity_metadata packet, as
// minecraft-protocol parsed them, for an entity of the given type name.
function decodeMetadata (type, metadata) {
  const names = FIELDS_BY_TYPE[type] || ENTITY_FIELDS
  const entries = []
  const fields = {}
  for (const e of metadata) {
    const name = names[e.key] || null
    entries.push({ key: e.key, type: e.type, name, value: e.value === undefined ? null : e.value })
    if (name) {
      fields[name] = fieldValue(e)
      if (name === 'text' || name === 'custom_name') {
        fields[name + '_json'] = e.value === undefined ? null : chatJson(e.value)
      }
    }
  }
  return { entries, fields }
}

function start () {
  bot = mineflayer.createBot({
    host: plan.host,
    port: plan.port,
    username: plan.username,
    version: plan.version,
    auth: 'offline',
    hideErrors: true,
    logErrors: false,
    checkTimeoutInterval: 60 * 1000,
    ...forwardingOptions(plan.forwarding)
  })
  useRegistry(bot.registry)
  const client = bot._client
  answerVelocity(client, plan.forwarding, plan.username)
  handleResourcePacks(bot, plan.resource_pack, plan.username, { record, chatText, isEnded: () => ended })

  client.on('login', (p) => {
    loginPacket = p
    selfId = p.entityId
    entityTypes.set(p.entityId, 'player')
    record('login', {
      entity_id: p.entityId,
      game_mode: GAME_MODES[p.gameMode & 3] || null,
      game_mode_id: p.gameMode,
      dimension: p.worldType,
      world_name: p.worldName,
      view_distance: p.viewDistance,
      is_flat: p.isFlat
    })
  })

  client.on('position', (p) => {
    teleportSeen = true
    record('teleport', {
      x: p.x,
      y: p.y,
      z: p.z,
      yaw: p.yaw,
      pitch: p.pitch,
      flags: p.flags,
      teleport_id: p.teleportId
    })
  })

  client.on('update_health', (p) => {
    health = p.health
    record('health', { health: p.health, food: p.food, saturation: p.foodSaturation })
  })
  bot.on('spawn', () => {
    mineflayerSpawn = true
  })

  client.on('game_state_change', (p) => {
    if (p.reason === 'change_game_mode') {
      record('game_mode', { game_mode: GAME_MODES[p.gameMode] || null, game_mode_id: p.gameMode })
    }
  })

  // Chat box lines: system messages, player chat, profileless chat.
  bot.on('message', (msg, position) => {
    if (position === 'game_info') {
      record('action_bar', { text: msg.toString(), json: msg.json })
    } else {
      record('chat', { kind: position || 'system', text: msg.toString(), json: msg.json })
    }
  })
  client.on('action_bar', (p) => record('action_bar', { text: chatText(p.text), json: chatJson(p.text) }))
  client.on('set_title_text', (p) => record('title', { text: chatText(p.text), json: chatJson(p.text) }))
  client.on('set_title_subtitle', (p) => record('subtitle', { text: chatText(p.text), json: chatJson(p.text) }))

  // Entities.
  client.on('spawn_entity', (p) => {
    const info = registry.entities[p.type]
    const type = info ? info.name : null
    entityTypes.set(p.entityId, type)
    const pos = { x: p.x, y: p.y, z: p.z, yaw: angle(p.yaw), pitch: angle(p.pitch) }
    entityPos.set(p.entityId, pos)
    record('spawn_entity', {
      packet: 'spawn_entity',
      entity_id: p.entityId,
      uuid: p.objectUUID,
      type,
      type_id: p.type,
      ...pos,
      head_yaw: angle(p.headPitch), // the 1.20.1 field named headPitch is the head yaw
      data: p.objectData,
      username: null
    })
  })
  client.on('named_entity_spawn', (p) => {
    entityTypes.set(p.entityId, 'player')
    const pos = { x: p.x, y: p.y, z: p.z, yaw: angle(p.yaw), pitch: angle(p.pitch) }
    entityPos.set(p.entityId, pos)
    const info = bot.players && Object.values(bot.players).find((pl) => pl.uuid === p.playerUUID)
    record('spawn_entity', {
      packet: 'named_entity_spawn',
      entity_id: p.entityId,
      uuid: p.playerUUID,
      type: 'player',
      type_id: registry.entitiesByName.player.id,
      ...pos,
      head_yaw: null,
      data: null,
      username: info ? info.username : null
    })
  })
  client.on('entity_metadata', (p) => {
    const type = entityTypes.has(p.entityId) ? entityTypes.get(p.entityId) : null
    const { entries, fields } = decodeMetadata(type, p.metadata)
    record('entity_metadata', { entity_id: p.entityId, type, self: p.entityId === selfId, entries, fields })
  })
  client.on('entity_destroy', (p) => {
    for (const id of p.entityIds) {
      entityTypes.delete(id)
      entityPos.delete(id)
    }
    record('entity_destroy', { entity_ids: p.entityIds })
  })

  function moved (packet, id, update) {
    const pos = entityPos.get(id) || { x: null, y: null, z: null, yaw: null, pitch: null }
    update(pos)
    entityPos.set(id, pos)
    record('entity_move', { packet, entity_id: id, type: entityTypes.get(id) || null, ...pos })
  }
  client.on('entity_teleport', (p) =>
    moved('entity_teleport', p.entityId, (pos) => {
      Object.assign(pos, { x: p.x, y: p.y, z: p.z, yaw: angle(p.yaw), pitch: angle(p.pitch) })
    })
  )
  const rel = (pos, p) => {
    if (pos.x !== null) {
      pos.x += p.dX / 4096
      pos.y += p.dY / 4096
      pos.z += p.dZ / 4096
    }
  }
  client.on('rel_entity_move', (p) => moved('rel_entity_move', p.entityId, (pos) => rel(pos, p)))
  client.on('entity_move_look', (p) =>
    moved('entity_move_look', p.entityId, (pos) => {
      rel(pos, p)
      pos.yaw = angle(p.yaw)
      pos.pitch = angle(p.pitch)
    })
  )
  client.on('entity_look', (p) =>
    moved('entity_look', p.entityId, (pos) => {
      pos.yaw = angle(p.yaw)
      pos.pitch = angle(p.pitch)
    })
  )
  client.on('entity_head_rotation', (p) =>
    record('entity_head_rotation', { entity_id: p.entityId, head_yaw: angle(p.headYaw) })
  )
  client.on('set_passengers', (p) =>
    record('set_passengers', { entity_id: p.entityId, passengers: p.passengers })
  )

  // Riding as the vanilla 1.20.1 client rides: mineflayer stops sending
  // anything once mounted, but LocalPlayer.tick keeps sending its look
  // (Rot) and its inputs (PlayerInput: jump 1, Shift 2) every tick while
  // it is a passenger, whatever entity its camera is.
  let riding = null
  bot.on('mount', () => {
    if (riding) return
    riding = setInterval(() => {
      if (!bot.vehicle || ended) {
        clearInterval(riding)
        riding = null
        return
      }
      client.write('look', {
        yaw: toNotchYaw(bot.entity.yaw),
        pitch: toNotchPitch(bot.entity.pitch),
        onGround: bot.entity.onGround
      })
      const flags = (bot.controlState.jump ? 1 : 0) | (bot.controlState.sneak ? 2 : 0)
      client.write('steer_vehicle', { sideways: 0, forward: 0, jump: flags })
    }, 50)
  })

  // Windows: what the server opens and fills, as the client would draw it.
  client.on('open_window', (p) => {
    record('window_open', {
      window_id: p.windowId,
      type_id: p.inventoryType,
      title: chatText(p.windowTitle),
      json: chatJson(p.windowTitle)
    })
  })
  client.on('window_items', (p) => {
    const slots = {}
    p.items.forEach((item, index) => {
      const value = windowItem(item)
      if (value) slots[index] = value
    })
    lastWindowItems[p.windowId] = p
    record('window_items', {
      window_id: p.windowId,
      state_id: p.stateId,
      slot_count: p.items.length,
      slots,
      carried: windowItem(p.carriedItem)
    })
  })
  client.on('set_slot', (p) => {
    record('window_slot', { window_id: p.windowId, state_id: p.stateId, slot: p.slot, item: windowItem(p.item) })
  })
  client.on('close_window', (p) => record('window_close', { window_id: p.windowId }))

  // Plugin messages (custom_payload), raw: the channel and the bytes as hex.
  client.on('custom_payload', (p) => {
    // minecraft-protocol parses minecraft:register itself, into the names:
    // put them back as the wire has them (NUL-separated).
    let data
    if (Buffer.isBuffer(p.data)) data = p.data
    else if (Array.isArray(p.data) && p.data.every((n) => typeof n === 'string')) data = Buffer.from(p.data.join('\0'))
    else data = Buffer.from(JSON.stringify(p.data === undefined ? null : p.data))
    record('plugin_message', { channel: p.channel, hex: data.toString('hex') })
  })

  // The command tree, as flat paths: "emote play <id>".
  client.on('declare_commands', (p) => {
    record('command_tree', { paths: commandPaths(p.nodes, p.rootIndex) })
  })

  // With "count_bytes", every packet's uncompressed bytes (its id too) are
  // added up by name, emitted once as "packet_bytes" when the plan ends.
  if (plan.count_bytes) {
    packetBytes = {}
    client.on('raw', (buffer, meta) => {
      packetBytes[meta.name] = (packetBytes[meta.name] || 0) + buffer.length
    })
  }

  // Any other packets the plan asked for, as decoded by minecraft-protocol.
  const wanted = new Set(plan.record_packets)
  if (wanted.size > 0) {
    client.on('packet', (data, meta) => {
      if (wanted.has(meta.name)) record('packet', { name: meta.name, data })
    })
  }

  bot.on('kicked', (reason, loggedIn) => {
    record('kicked', { reason: chatText(reason), json: chatJson(reason), logged_in: loggedIn })
  })
  bot.on('error', (err) => {
    record('error', { message: String(err && err.message ? err.message : err) })
    if (!expectingEnd) finish(1, `client error: ${err && err.message ? err.message : err}`)
  })
  bot.on('end', (reason) => {
    ended = true
    record('end', { reason: reason === undefined ? null : String(reason) })
    if (!expectingEnd) finish(1, `the connection ended before the plan finished: ${reason}`)
  })
}

function commandPaths (nodes, rootIndex) {
  const out = []
  const walk = (index, prefix, depth) => {
    const node = nodes[index]
    if (!node || depth > 32) return
    const kind = node.flags.command_node_type
    let label = null
    if (kind === 1) label = node.extraNodeData.name
    if (kind === 2) label = `<${node.extraNodeData.name}>`
    const path = label === null ? prefix : prefix ? `${prefix} ${label}` : label
    if (label !== null && node.flags.has_command) out.push(path)
    if (node.flags.has_redirect_node) {
      const target = nodes[node.redirectNode]
      const tname = target && target.extraNodeData ? target.extraNodeData.name : `#${node.redirectNode}`
      out.push(`${path} -> ${tname}`)
      return
    }
    for (const child of node.children) walk(child, path, depth + 1)
  }
  walk(rootIndex, '', 0)
  return out
}

// ---------------------------------------------------------------- steps

function sleep (ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

// Polls `check` every 20 ms until it returns a truthy value.
async function until (what, ms, check) {
  const deadline = Date.now() + ms
  for (;;) {
    const v = check()
    if (v) return v
    if (ended && !expectingEnd) throw new Error(`connection ended while waiting for ${what}`)
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(20)
  }
}

function blockUnder () {
  const p = bot.entity.position
  // The block the feet stand on (feet at y = 65.0 stand on the block at 64).
  return new Vec3(Math.floor(p.x), Math.floor(p.y - 0.01), Math.floor(p.z))
}

function blockEvent (pos) {
  const b = bot.blockAt(pos)
  return {
    x: pos.x,
    y: pos.y,
    z: pos.z,
    name: b ? `minecraft:${b.name}` : null,
    state_id: b ? b.stateId : null,
    properties: b ? b.getProperties() : null
  }
}

function positionEvent () {
  const p = bot.entity.position
  return {
    x: p.x,
    y: p.y,
    z: p.z,
    yaw: toNotchYaw(bot.entity.yaw),
    pitch: toNotchPitch(bot.entity.pitch),
    on_ground: bot.entity.onGround
  }
}

// Minecraft degrees (yaw 0 = +z south, 90 = -x west; pitch 90 = down) to
// mineflayer radians and back.
function fromNotchYaw (deg) {
  const r = Math.PI - (deg * Math.PI) / 180
  return ((r % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI)
}
function fromNotchPitch (deg) {
  return (-deg * Math.PI) / 180
}
function toNotchYaw (rad) {
  const d = ((Math.PI - rad) * 180) / Math.PI
  return ((d % 360) + 360) % 360
}
function toNotchPitch (rad) {
  return (-rad * 180) / Math.PI
}

function matches (ev, pattern) {
  for (const [k, want] of Object.entries(pattern)) {
    if (k === 'text_contains') {
      if (typeof ev.text !== 'string' || !ev.text.includes(want)) return false
    } else if (k === 'has_field') {
      if (!ev.fields || !(want in ev.fields)) return false
    } else if (JSON.stringify(ev[k], jsonSafe) !== JSON.stringify(want)) {
      return false
    }
  }
  return true
}

const STEP_KINDS = [
  'wait_spawn',
  'wait_ms',
  'wait_for',
  'wait_end',
  'chat',
  'tab_complete',
  'look',
  'move_to',
  'set_control',
  'clear_controls',
  'swing',
  'attack',
  'set_slot',
  'swap_hands',
  'click_window',
  'close_window',
  'send_plugin',
  'block_at',
  'position',
  'track_position',
  'disconnect'
]

let transactionId = 0

async function runStep (step, remainingMs) {
  const kind = STEP_KINDS.find((k) => Object.prototype.hasOwnProperty.call(step, k))
  if (!kind) throw new Error(`unknown step ${JSON.stringify(step)}; known: ${STEP_KINDS.join(', ')}`)
  const arg = step[kind]
  const timeout = step.timeout_ms || remainingMs
  switch (kind) {
    case 'wait_spawn': {
      // The server has put us in the world: login and the first position
      // packet arrived and the chunk under our feet is loaded. (mineflayer's
      // own 'spawn' event also needs a health update; see "mineflayer_spawn".)
      await until('login and position packets', timeout, () => loginPacket && teleportSeen && bot.entity)
      await until('the chunk under the bot', timeout, () => bot.blockAt(blockUnder()) !== null)
      record('spawn', {
        ...positionEvent(),
        entity_id: selfId,
        game_mode: bot.game && bot.game.gameMode ? bot.game.gameMode : GAME_MODES[loginPacket.gameMode & 3],
        health,
        mineflayer_spawn: mineflayerSpawn
      })
      return
    }
    case 'wait_ms':
      await sleep(Number(arg))
      return
    case 'wait_for': {
      // {"wait_for": {pattern}, "count": n, "since_start": bool, "timeout_ms": ms}
      const count = step.count || 1
      const seen = []
      const ms = step.timeout_ms || 5000
      if (step.since_start) {
        for (const ev of history) if (matches(ev, arg)) seen.push(ev)
      }
      if (seen.length >= count) return
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(l)
          reject(new Error(`timed out after ${ms} ms waiting for ${count} × ${JSON.stringify(arg)} (saw ${seen.length})`))
        }, ms)
        function l (ev) {
          if (matches(ev, arg)) {
            seen.push(ev)
            if (seen.length >= count) {
              clearTimeout(timer)
              listeners.delete(l)
              resolve()
            }
          }
        }
        listeners.add(l)
      })
      return
    }
    case 'wait_end': {
      expectingEnd = true
      await until('the server to end the connection', step.timeout_ms || 10000, () => ended)
      return
    }
    case 'chat':
      bot.chat(String(arg))
      return
    case 'tab_complete': {
      const id = ++transactionId
      const ms = step.timeout_ms || 5000
      bot._client.write('tab_complete', { transactionId: id, text: String(arg) })
      let reply = null
      try {
        reply = await new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            bot._client.removeListener('tab_complete', l)
            reject(new Error('timeout'))
          }, ms)
          function l (p) {
            if (p.transactionId !== id) return
            clearTimeout(timer)
            bot._client.removeListener('tab_complete', l)
            resolve(p)
          }
          bot._client.on('tab_complete', l)
        })
      } catch (_) {}
      record('tab_complete', {
        text: String(arg),
        transaction_id: id,
        timed_out: reply === null,
        start: reply ? reply.start : null,
        length: reply ? reply.length : null,
        matches: reply ? reply.matches.map((m) => m.match) : [],
        tooltips: reply ? reply.matches.map((m) => (m.tooltip === undefined ? null : chatText(m.tooltip))) : []
      })
      return
    }
    case 'look': {
      const yaw = arg.yaw !== undefined ? fromNotchYaw(arg.yaw) : bot.entity.yaw
      const pitch = arg.pitch !== undefined ? fromNotchPitch(arg.pitch) : bot.entity.pitch
      await bot.look(yaw, pitch, true)
      await sleep(120) // sent with the next physics ticks
      return
    }
    case 'move_to': {
      const [x, , z] = arg
      const tolerance = step.tolerance || 0.3
      const ms = step.timeout_ms || 15000
      const deadline = Date.now() + ms
      try {
        for (;;) {
          const p = bot.entity.position
          const d = Math.hypot(x - p.x, z - p.z)
          if (d <= tolerance) break
          if (Date.now() > deadline) throw new Error(`move_to ${JSON.stringify(arg)} timed out at ${p}`)
          if (ended) throw new Error('connection ended during move_to')
          await bot.lookAt(new Vec3(x, p.y + bot.entity.eyeHeight, z), true)
          bot.setControlState('sprint', false)
          bot.setControlState('forward', true)
          await sleep(d < 1 ? 10 : 50)
        }
      } finally {
        bot.setControlState('forward', false)
      }
      await until('the bot to stop', 3000, () => bot.entity.velocity.x ** 2 + bot.entity.velocity.z ** 2 < 1e-4)
      record('bot_position', positionEvent())
      return
    }
    case 'set_control':
      for (const [control, state] of Object.entries(arg)) bot.setControlState(control, !!state)
      return
    case 'clear_controls':
      bot.clearControlStates()
      return
    case 'swing':
      bot.swingArm(arg === 'left' ? 'left' : 'right')
      return
    case 'attack': {
      // Hits the named player once (a left click on its entity).
      const target = bot.players[arg] && bot.players[arg].entity
      if (!target) throw new Error(`attack: no player entity named ${arg} in sight`)
      bot.attack(target)
      return
    }
    case 'set_slot': {
      // Creative mode only: puts an item (or nothing) in an inventory slot
      // (36..44 is the hotbar; the selected one is the main hand).
      const Item = require('prismarine-item')(bot.version)
      const def = arg.item ? bot.registry.itemsByName[arg.item] : null
      if (arg.item && !def) throw new Error(`set_slot: unknown item ${arg.item}`)
      await bot.creative.setInventorySlot(arg.slot, def ? new Item(def.id, arg.count || 1) : null, 0)
      return
    }
    case 'swap_hands':
      // PlayerActionC2s SwapItemWithOffhand (status 6): the F key.
      bot._client.write('block_dig', { status: 6, location: { x: 0, y: 0, z: 0 }, face: 0, sequence: 0 })
      return
    case 'click_window': {
      // A window_click packet (ClickSlotC2s), as a vanilla client sends it:
      // the state id of the last window_items of that window, and the slots
      // the client believes changed. Without "changed"/"cursor" the bot
      // claims what a left or right click of mode 0 would do: the clicked
      // slot emptied and its stack on the cursor.
      const windowId = arg.window_id === undefined ? 117 : arg.window_id
      const last = lastWindowItems[windowId]
      const mode = arg.mode || 0
      const slot = arg.slot
      const stack = last && slot >= 0 && last.items[slot] ? last.items[slot] : { present: false }
      const rawItem = (spec) => {
        if (!spec) return { present: false }
        const def = bot.registry.itemsByName[spec.item]
        if (!def) throw new Error(`click_window: unknown item ${spec.item}`)
        return { present: true, itemId: def.id, itemCount: spec.count || 1, nbtData: undefined }
      }
      let changedSlots
      let cursorItem
      if (arg.changed || arg.cursor !== undefined) {
        changedSlots = (arg.changed || []).map((c) => ({ location: c.slot, item: rawItem(c.item ? c : null) }))
        cursorItem = rawItem(arg.cursor || null)
      } else if (mode === 0 && slot >= 0) {
        changedSlots = [{ location: slot, item: { present: false } }]
        cursorItem = stack
      } else {
        changedSlots = []
        cursorItem = { present: false }
      }
      bot._client.write('window_click', {
        windowId,
        stateId: last ? last.stateId : 0,
        slot,
        mouseButton: arg.button || 0,
        mode,
        changedSlots,
        cursorItem
      })
      return
    }
    case 'send_plugin':
      // A plugin message (custom_payload) on a channel, its bytes as hex.
      bot._client.write('custom_payload', { channel: arg.channel, data: Buffer.from(arg.hex, 'hex') })
      return
    case 'close_window':
      // The player closes the window (Escape): close_window (CloseHandledScreenC2s).
      bot._client.write('close_window', { windowId: arg === true ? 117 : arg })
      return
    case 'block_at': {
      const pos = arg === 'below' ? blockUnder() : new Vec3(arg[0], arg[1], arg[2]).floored()
      record('block', blockEvent(pos))
      return
    }
    case 'position':
      record('bot_position', positionEvent())
      return
    case 'track_position': {
      // From now on, the bot's own position every `arg` ms (a walk's path).
      const every = setInterval(() => {
        if (ended || !bot.entity) {
          clearInterval(every)
          return
        }
        record('bot_position', positionEvent())
      }, arg)
      return
    }
    case 'disconnect': {
      expectingEnd = true
      bot.quit()
      await until('the connection to close', step.timeout_ms || 5000, () => ended)
      return
    }
  }
}

// Every event, for wait_for's since_start.
const history = []
listeners.add((ev) => history.push(ev))

async function main () {
  const timer = setTimeout(() => {
    finish(1, `the plan timed out after ${plan.timeout_ms} ms (at step ${currentStep}: ${JSON.stringify(plan.steps[currentStep])})`)
  }, plan.timeout_ms)
  start()
  for (currentStep = 0; currentStep < plan.steps.length; currentStep++) {
    const step = plan.steps[currentStep]
    record('step', { index: currentStep, step })
    try {
      await runStep(step, Math.max(1, plan.timeout_ms - (Date.now() - T0)))
    } catch (e) {
      clearTimeout(timer)
      finish(1, `step ${currentStep} ${JSON.stringify(step)} failed: ${e.message}`)
      return
    }
    if (finished) return
  }
  clearTimeout(timer)
  expectingEnd = true
  finish(0)
}

let currentStep = 0

if (require.main === module) {
  try {
    plan = readPlan()
  } catch (e) {
    process.stderr.write(`bot.js: bad plan: ${e.message}\n`)
    process.exit(2)
  }
  // The wall clock at t = 0, so that events of two clients can be compared.
  emit('clock', { unix_ms: T0 })
  main().catch((e) => finish(1, `internal error: ${e.stack || e}`))
}

// For selftest.js.
module.exports = { decodeMetadata, useRegistry, FIELDS_BY_TYPE, jsonSafe }
