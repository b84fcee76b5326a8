#!/usr/bin/env node
// Checks bot.js's metadata decoding on entity_metadata packets built byte by
// byte the way valence 0.2.0-alpha.1 writes them for 1.20.1 (packet 0x52:
// VarInt entity id, then {u8 index, VarInt type, value}..., then 0xFF),
// parsed by the same minecraft-protocol deserializer the bot uses.
// Prints "N passed, 0 failed" and exits 0, or exits 1 on the first failure.
'use strict'

const assert = require('assert')
const mc = require('minecraft-protocol')
const { decodeMetadata, useRegistry } = require('./bot.js')

const registry = require('prismarine-registry')('1.20.1')
useRegistry(registry)
const deserializer = mc.createDeserializer({ state: mc.states.PLAY, isServer: false, version: '1.20.1' })

// ---- byte writers (big-endian, as in the protocol)
function varint (n) {
  const out = []
  let v = n >>> 0
  for (;;) {
    if ((v & ~0x7f) === 0) {
      out.push(v)
      return Buffer.from(out)
    }
    out.push((v & 0x7f) | 0x80)
    v >>>= 7
  }
}
function f32 (...xs) {
  const b = Buffer.alloc(4 * xs.length)
  xs.forEach((x, i) => b.writeFloatBE(x, 4 * i))
  return b
}
function str (s) {
  const b = Buffer.from(s, 'utf8')
  return Buffer.concat([varint(b.length), b])
}
function entry (index, typeId, value) {
  return Buffer.concat([Buffer.from([index]), varint(typeId), value])
}
function metadataPacket (entityId, entries) {
  return Buffer.concat([varint(0x52), varint(entityId), ...entries, Buffer.from([0xff])])
}

function decode (type, buf) {
  const { data } = deserializer.parsePacketBuffer(buf)
  assert.strictEqual(data.name, 'entity_metadata')
  return decodeMetadata(type, data.params.metadata)
}

const close = (a, b, what) => {
  assert.strictEqual(a.length, b.length, what)
  a.forEach((x, i) => assert.ok(Math.abs(x - b[i]) < 1e-6, `${what}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`))
}

const cases = []
const test = (name, fn) => cases.push([name, fn])

test('item_display transformation and item', () => {
  const stick = registry.itemsByName.stick.id
  const { entries, fields } = decode('item_display', metadataPacket(7, [
    entry(8, 1, varint(0)), // start_interpolation
    entry(9, 1, varint(3)), // interpolation_duration
    entry(10, 26, f32(0.25, 1.5, -0.5)), // translation
    entry(11, 26, f32(1, 2, 0.5)), // scale
    entry(12, 27, f32(0, 0.7071068, 0, 0.7071068)), // left_rotation
    entry(13, 27, f32(0, 0, 0, 1)), // right_rotation
    entry(14, 0, Buffer.from([3])), // billboard center
    entry(22, 7, Buffer.concat([Buffer.from([1]), varint(stick), Buffer.from([2, 0])])), // item: present, id, count 2, no nbt
    entry(23, 0, Buffer.from([8])) // item_display fixed
  ]))
  assert.strictEqual(fields.start_interpolation, 0)
  assert.strictEqual(fields.interpolation_duration, 3)
  close(fields.translation, [0.25, 1.5, -0.5], 'translation')
  close(fields.scale, [1, 2, 0.5], 'scale')
  close(fields.left_rotation, [0, 0.7071068, 0, 0.7071068], 'left_rotation')
  close(fields.right_rotation, [0, 0, 0, 1], 'right_rotation')
  assert.strictEqual(fields.billboard, 3)
  assert.deepStrictEqual(fields.item, { id: 'minecraft:stick', item_id: stick, count: 2, nbt: null })
  assert.strictEqual(fields.item_display, 8)
  assert.deepStrictEqual(entries.map((e) => e.name), [
    'start_interpolation', 'interpolation_duration', 'translation', 'scale',
    'left_rotation', 'right_rotation', 'billboard', 'item', 'item_display'
  ])
  assert.deepStrictEqual(entries.map((e) => e.type), [
    'int', 'int', 'vector3', 'vector3', 'quaternion', 'quaternion', 'byte', 'item_stack', 'byte'
  ])
})

test('item_display with an empty item and NBT', () => {
  const sword = registry.itemsByName.diamond_sword.id
  // Compound {CustomModelData: int 1001} as network NBT (1.20.1: named root, empty name).
  const tag = Buffer.concat([
    Buffer.from([10, 0, 0]), // TAG_Compound, name length 0
    Buffer.from([3]), Buffer.from([0, 15]), Buffer.from('CustomModelData'), Buffer.from([0, 0, 0x03, 0xe9]),
    Buffer.from([0]) // TAG_End
  ])
  let r = decode('item_display', metadataPacket(7, [
    entry(22, 7, Buffer.concat([Buffer.from([1]), varint(sword), Buffer.from([1]), tag]))
  ]))
  assert.deepStrictEqual(r.fields.item, { id: 'minecraft:diamond_sword', item_id: sword, count: 1, nbt: { CustomModelData: 1001 } })
  r = decode('item_display', metadataPacket(7, [entry(22, 7, Buffer.from([0]))]))
  assert.strictEqual(r.fields.item, null)
})

test('block_display block state with properties', () => {
  const stairs = registry.blocksByName.oak_stairs.defaultState
  const { fields } = decode('block_display', metadataPacket(9, [
    entry(22, 14, varint(stairs)),
    entry(10, 26, f32(-0.5, 0, -0.5))
  ]))
  assert.deepStrictEqual(fields.block_state, {
    state_id: stairs,
    name: 'minecraft:oak_stairs',
    properties: { waterlogged: false, shape: 'straight', half: 'bottom', facing: 'north' }
  })
  close(fields.translation, [-0.5, 0, -0.5], 'translation')
})

test('text_display text, line width, background, opacity, flags', () => {
  const json = JSON.stringify({ text: '', extra: [{ text: 'Hi ', color: 'gold' }, { text: 'there' }] })
  const { fields } = decode('text_display', metadataPacket(11, [
    entry(22, 5, str(json)),
    entry(23, 1, varint(120)),
    entry(24, 1, varint(0x40ff0000)),
    entry(25, 0, Buffer.from([0x7f])),
    entry(26, 0, Buffer.from([0x01 | 0x08]))
  ]))
  assert.strictEqual(fields.text, 'Hi there')
  assert.deepStrictEqual(fields.text_json, JSON.parse(json))
  assert.strictEqual(fields.line_width, 120)
  assert.strictEqual(fields.background, 0x40ff0000)
  assert.strictEqual(fields.text_opacity, 127)
  assert.strictEqual(fields.text_flags, 9)
})

test('base entity fields on any entity; unknown indices keep name null', () => {
  const { entries, fields } = decode('player', metadataPacket(0, [
    entry(0, 0, Buffer.from([0x20])), // invisible
    entry(17, 0, Buffer.from([0x7f])) // player skin parts: not named
  ]))
  assert.strictEqual(fields.flags, 0x20)
  assert.deepStrictEqual(Object.keys(fields), ['flags'])
  assert.strictEqual(entries[1].name, null)
  assert.strictEqual(entries[1].key, 17)
  assert.strictEqual(entries[1].value, 0x7f)
})

test('interaction width, height, response', () => {
  const { fields } = decode('interaction', metadataPacket(12, [
    entry(8, 3, f32(0.6)),
    entry(9, 3, f32(1.8)),
    entry(10, 8, Buffer.from([1]))
  ]))
  assert.ok(Math.abs(fields.width - 0.6) < 1e-6)
  assert.ok(Math.abs(fields.height - 1.8) < 1e-6)
  assert.strictEqual(fields.response, true)
})

let passed = 0
for (const [name, fn] of cases) {
  try {
    fn()
    passed++
  } catch (e) {
    process.stderr.write(`FAIL ${name}: ${e.stack || e}\n`)
    process.stdout.write(`${passed} passed, 1 failed\n`)
    process.exit(1)
  }
}
process.stdout.write(`${passed} passed, 0 failed\n`)
