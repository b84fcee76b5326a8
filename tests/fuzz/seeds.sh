#!/usr/bin/env bash
# Fills tests/fuzz/corpus/<target>/ with the seeds each fuzz target starts
# from (run.sh calls it before fuzzing; it can be run on its own).
#
# Text formats take the repository's own files, copied by extension from
# emotes/, datapacks/ and tests/fixtures/; SNBT and Molang take the strings
# of those files that hold them. The binary protocols (and the HTTP, RCON
# and proxy inputs) take a few messages written here, byte by byte, and the
# admin's pack a few zips built here from the repository's files. Nothing
# is downloaded. The corpus folder is git-ignored: libFuzzer adds what it
# finds to it, and a later run starts from there.
#
# Usage: tests/fuzz/seeds.sh [TARGET...]   (every target when none is named)
set -euo pipefail

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
repo_dir=$(cd "$fuzz_dir/../.." && pwd)
corpus_dir=$fuzz_dir/corpus

# A player UUID and an emote UUID, as 32 hex digits.
player_uuid_hex=069a79f444e94726a5befca90e38aaf5
emote_uuid_hex=3f2c1b0a99884776a5b4c3d2e1f00a1b

# --- Writing bytes --------------------------------------------------------

# The bytes of HEX (whitespace ignored) on stdout.
hex_bytes() {
    printf '%b' "$(sed -E 's/[[:space:]]//g; s/(..)/\\x\1/g' <<<"$1")"
}

# The hex of TEXT's UTF-8 bytes.
text_hex() {
    printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'
}

# A 32-bit number, big-endian and little-endian; a 16-bit one little-endian.
be32() { printf '%08x' $(($1 & 0xFFFFFFFF)); }
le32() { printf '%02x%02x%02x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
le16() { printf '%02x%02x' $(($1 & 255)) $(($1 >> 8 & 255)); }

# How many bytes HEX holds.
hex_length() {
    local compact=${1//[[:space:]]/}
    echo $((${#compact} / 2))
}

# Writes HEX as the seed NAME of TARGET.
write_hex_seed() {
    hex_bytes "$3" >"$corpus_dir/$1/$2"
}

# Writes TEXT (printf %b escapes such as \x00 and \r\n expanded) as the seed NAME of TARGET.
write_text_seed() {
    printf '%b' "$3" >"$corpus_dir/$1/$2"
}

# --- Taking the repository's files ----------------------------------------

# Copies the files `find` gives for FOLDER and the tests after it into
# TARGET's corpus, each named by its path in the repository.
copy_found() {
    local target=$1 folder=$2
    shift 2
    [ -d "$repo_dir/$folder" ] || return 0
    (cd "$repo_dir" && find "$folder" -type f "$@" -print0) |
        while IFS= read -r -d '' path; do
            cp "$repo_dir/$path" "$corpus_dir/$target/${path//\//_}"
        done
}

# Every JSON string value of the repository's emote files, unescaped, one
# per line (strings holding a line break are left out).
json_strings() {
    (cd "$repo_dir" && find emotes datapacks tests/fixtures -type f -name '*.json' -print0) |
        (cd "$repo_dir" && xargs -0 grep -ohE '"([^"\\]|\\.)*"') |
        sed -E 's/^"//; s/"$//; s/\\"/"/g; s/\\\\/\\/g' |
        { grep -v '\\n' || true; } | sort -u
}

# Writes each line of stdin as its own seed of TARGET.
lines_as_seeds() {
    local target=$1 count=0
    while IFS= read -r line; do
        count=$((count + 1))
        printf '%s' "$line" >"$corpus_dir/$target/repo-string-$count"
    done
}

# --- Zips, written here (stored and deflated entries) ---------------------

# Writes a zip to OUT of the entries NAME FILE NAME FILE ...; a NAME ending
# in `/` is a folder entry (its FILE is ignored). METHOD is `stored` or
# `deflated` (raw deflate from gzip, whose trailer also gives the CRC-32).
write_zip() {
    local out=$1 method=$2
    shift 2
    local central="" count=0 offset=0 name file crc data size_in size_out method_id
    local scratch
    scratch=$(mktemp -d)
    : >"$out"
    while [ $# -ge 2 ]; do
        name=$1 file=$2
        shift 2
        if [[ $name == */ ]]; then
            : >"$scratch/data"
            crc=00000000
            method_id=0
        else
            crc=$(gzip -n -c "$file" | tail -c 8 | head -c 4 | od -An -v -tx1 | tr -d ' \n')
            if [ "$method" = deflated ]; then
                gzip -n -9 -c "$file" | tail -c +11 | head -c -8 >"$scratch/data"
                method_id=8
            else
                cp "$file" "$scratch/data"
                method_id=0
            fi
        fi
        size_in=$(if [[ $name == */ ]]; then echo 0; else wc -c <"$file"; fi)
        size_out=$(wc -c <"$scratch/data")
        local name_hex fields
        name_hex=$(text_hex "$name")
        # version needed, flags, method, time, date (1980-01-01), CRC, sizes, name length, extra length
        fields="$(le16 20)$(le16 0)$(le16 "$method_id")$(le16 0)$(le16 33)$crc$(le32 "$size_out")$(le32 "$size_in")$(le16 "$(hex_length "$name_hex")")$(le16 0)"
        hex_bytes "504b0304$fields$name_hex" >>"$out"
        cat "$scratch/data" >>"$out"
        # made by, then the same fields, comment length, disk, attributes, offset
        central+="504b0102$(le16 20)$fields$(le16 0)$(le16 0)$(le16 0)$(le32 0)$(le32 "$offset")$name_hex"
        count=$((count + 1))
        offset=$(wc -c <"$out")
    done
    hex_bytes "$central" >>"$out"
    hex_bytes "504b0506$(le16 0)$(le16 0)$(le16 "$count")$(le16 "$count")$(le32 "$(hex_length "$central")")$(le32 "$offset")$(le16 0)" >>"$out"
    rm -r "$scratch"
}

# --- Emotecraft's binary protocol (big-endian) -----------------------------

# A sized string: i32 length, then UTF-8.
emotecraft_string() {
    local hex
    hex=$(text_hex "$1")
    echo "$(be32 "$(hex_length "$hex")")$hex"
}

# One axis: enabled, then keyframes given as TICK VALUE_HEX EASE triples.
emotecraft_axis() {
    local enabled=$1
    shift
    local keys="" count=0
    while [ $# -ge 3 ]; do
        keys+="$(be32 "$1")$2$(printf '%02x' "$3")"
        count=$((count + 1))
        shift 3
    done
    echo "$(printf '%02x' "$enabled")$(be32 "$count")$keys"
}

# A sub-packet: id, version, i32 size, payload.
emotecraft_sub() {
    echo "$(printf '%02x%02x' "$1" "$2")$(be32 "$(hex_length "$3")")$3"
}

# A packet of networking version 8: purpose, sub-packet count, sub-packets.
emotecraft_packet() {
    local purpose=$1 count=$2
    shift 2
    echo "$(be32 8)$(printf '%02x%02x' "$purpose" "$count")$*"
}

# The emote sub-packet's payload: start tick 0, then a 20-tick animation
# that raises the right arm (pitch, radians) and turns the head (yaw).
emotecraft_wave_payload() {
    local still
    still=$(emotecraft_axis 0)
    local right_arm head
    right_arm="$(emotecraft_string rightArm)$still$still$still$(emotecraft_axis 1 0 00000000 0 10 bfc90fdb 8 20 00000000 8)$still$still$still$still"
    head="$(emotecraft_string head)$still$still$still$still$(emotecraft_axis 1 0 00000000 0 10 3f000000 12)$still"
    # start tick; beginTick, endTick, stopTick, isLooped, returnTick, isEasingBefore, nsfw, keyframeSize, partCount
    echo "$(be32 0)$(be32 0)$(be32 20)$(be32 20)00$(be32 0)0000$(printf '%02x' 9)$(be32 2)$right_arm$head$emote_uuid_hex"
}

# --- Other binary inputs ---------------------------------------------------

# A VarInt under 128 and a Minecraft string (VarInt length, UTF-8).
varint_small() { printf '%02x' "$1"; }
mc_string() {
    local hex
    hex=$(text_hex "$1")
    echo "$(varint_small "$(hex_length "$hex")")$hex"
}

# One RCON packet: i32 length, request id, type, payload, two zero bytes (little-endian).
rcon_packet() {
    local payload_hex
    payload_hex=$(text_hex "$3")
    echo "$(le32 $((10 + $(hex_length "$payload_hex"))))$(le32 "$1")$(le32 "$2")${payload_hex}0000"
}

# --- The targets -------------------------------------------------------------

seed_emote_json() {
    copy_found emote_json emotes -name '*.json'
    copy_found emote_json datapacks -name '*.json'
    copy_found emote_json tests/fixtures -name '*.json' -not -path 'tests/fixtures/import/*'
    copy_found emote_json tests/fixtures/import -name '*.schema4.json'
}

seed_snbt() {
    json_strings | { grep -E '^\{' || true; } | lines_as_seeds snbt
    write_text_seed snbt item-modern '{id:"minecraft:diamond_sword",count:1,components:{"minecraft:enchantment_glint_override":true}}'
    write_text_seed snbt item-1-20-1 '{id:"minecraft:stick",Count:1b,tag:{display:{Name:'"'"'{"text":"Wand"}'"'"'}}}'
    write_text_seed snbt block-state '{Name:"minecraft:oak_stairs",Properties:{facing:"east",half:"top"}}'
    write_text_seed snbt arrays '{a:[B;1b,2b],b:[I;1,2],c:[L;1L,2L],d:[1.5d,2.5d],e:-3s}'
}

seed_molang() {
    json_strings | { grep -E '(^|[^a-z_])(q|query|math|v|variable|t|temp|c|context)\.[a-z_]' || true; } | lines_as_seeds molang
    write_text_seed molang loop 't.i = 0; loop(10, { t.i = t.i + 1; (t.i > 5) ? break; }); return t.i;'
    write_text_seed molang strings "v.name = 'steve'; return v.name == 'steve' ? 1 : 0;"
    write_text_seed molang operators '(q.anim_time ?? 1) * -2 / 3 + 4 - 5 < 6 && !(7 >= 8) || 9 != 10 ? 11 : 12'
    write_text_seed molang dice 'math.die_roll(2, 1, 6) + math.random_integer(0, 3) + math.clamp(math.lerp(0, 10, .5), 1.5f, 2e1)'
}

seed_anim_clip() {
    copy_found anim_clip tests/fixtures -name '*.anim'
    copy_found anim_clip tests/fixtures -name '*.retarget'
    copy_found anim_clip emotes -name '*.anim'
}

seed_emotecraft_json() {
    copy_found emotecraft_json tests/fixtures/import/emotecraft -name '*.json' -not -name '*.schema4.json'
}

seed_blockbench() {
    copy_found blockbench tests/fixtures -name '*.bbmodel'
}

seed_bedrock() {
    copy_found bedrock tests/fixtures/import/bedrock -name '*.animation.json'
    copy_found bedrock tests/fixtures/import/bedrock -name '*.geo.json'
}

seed_gltf() {
    copy_found gltf tests/fixtures -name '*.gltf'
    copy_found gltf tests/fixtures -name '*.glb'
}

seed_three_ds() {
    copy_found three_ds tests/fixtures -name '*.3ds'
}

seed_legacy() {
    copy_found legacy tests/fixtures/import/legacy -name '*.json' -not -name '*.schema4.json'
}

seed_emotecraft_packet() {
    local target=emotecraft_packet player_payload
    player_payload="${player_uuid_hex}00"
    write_hex_seed $target stream "$(emotecraft_packet 1 2 \
        "$(emotecraft_sub 0 2 "$(emotecraft_wave_payload)")" \
        "$(emotecraft_sub 1 1 "$player_payload")")"
    write_hex_seed $target config "$(emotecraft_packet 8 1 \
        "$(emotecraft_sub 8 8 "$(be32 3)00020101 0808")")"
    write_hex_seed $target stop "$(emotecraft_packet 10 2 \
        "$(emotecraft_sub 10 1 "$emote_uuid_hex")" \
        "$(emotecraft_sub 1 1 "$player_payload")")"
    write_hex_seed $target file "$(emotecraft_packet 16 2 \
        "$(emotecraft_sub 0 2 "$(emotecraft_wave_payload)")" \
        "$(emotecraft_sub 17 1 "$(emotecraft_string Wave)$(emotecraft_string 'A friendly wave')$(emotecraft_string emoted)")")"
}

seed_animation_channel() {
    local target=animation_channel name_hex json_hex
    write_hex_seed $target c2s-hello 010003
    write_hex_seed $target s2c-hello "010001$(be32 32768)$(be32 1048576)"
    name_hex=$(text_hex wave)
    json_hex=$(text_hex '{"format_version":"1.8.0","animations":{}}')
    write_hex_seed $target s2c-play "0101$player_uuid_hex$emote_uuid_hex$(be32 5)$(printf '%04x' "$(hex_length "$name_hex")")$name_hex$(be32 "$(hex_length "$json_hex")")$json_hex"
    write_hex_seed $target s2c-stop "0102$player_uuid_hex$emote_uuid_hex"
}

seed_bungeecord() {
    local target=bungeecord
    write_text_seed $target three-parts "localhost\\x00127.0.0.1\\x00$player_uuid_hex"
    write_text_seed $target four-parts "play.example.com\\x00::1\\x00069a79f4-44e9-4726-a5be-fca90e38aaf5\\x00"'[{"name":"textures","value":"e30=","signature":"c2ln"}]'
    write_text_seed $target not-forwarded 'localhost'
}

seed_velocity() {
    local target=velocity
    # version, address, UUID, name, property count [, properties]
    write_hex_seed $target offline "01$(mc_string 127.0.0.1)$player_uuid_hex$(mc_string Steve)00"
    write_hex_seed $target textures "01$(mc_string 127.0.0.1)$player_uuid_hex$(mc_string Steve)01$(mc_string textures)$(mc_string e30=)01$(mc_string c2ln)"
    write_hex_seed $target version-4 "04$(mc_string ::1)$player_uuid_hex$(mc_string Steve)00"
}

seed_admin_pack() {
    local target=admin_pack scratch
    scratch=$(mktemp -d)
    printf '%s' '{"pack":{"pack_format":15,"description":"Our server"},"language":{"xx_xx":{"name":"Fuzz","region":"Here","bidirectional":false}}}' >"$scratch/pack.mcmeta"
    printf '%s' '{"parent":"minecraft:item/template_skull","overrides":[{"predicate":{"custom_model_data":1},"model":"minecraft:item/crown"}]}' >"$scratch/player_head.json"
    printf '%s' '{"textures":{"layer0":"minecraft:item/paper"},"overrides":[{"predicate":{"custom_model_data":7},"model":"minecraft:item/ticket"}]}' >"$scratch/paper.json"
    write_zip "$corpus_dir/$target/stored.zip" stored \
        pack.mcmeta "$scratch/pack.mcmeta" \
        assets/ - \
        assets/minecraft/models/item/player_head.json "$scratch/player_head.json"
    write_zip "$corpus_dir/$target/deflated.zip" deflated \
        pack.mcmeta "$scratch/pack.mcmeta" \
        assets/minecraft/models/item/paper.json "$scratch/paper.json" \
        assets/minecraft/textures/block/stone.png "$repo_dir/tests/fixtures/preview/wave.png"
    write_zip "$corpus_dir/$target/folder-zipped.zip" stored \
        my_pack/ - \
        my_pack/pack.mcmeta "$scratch/pack.mcmeta"
    rm -r "$scratch"
}

seed_pack_http() {
    local target=pack_http pack_path=/pack/da39a3ee5e6b4b0d3255bfef95601890afd80709.zip
    write_text_seed $target get-pack "GET $pack_path HTTP/1.1\\r\\nHost: 127.0.0.1:25580\\r\\nUser-Agent: Minecraft Java/1.20.1\\r\\nX-Minecraft-Username: Steve\\r\\n\\r\\n"
    write_text_seed $target head-pack "HEAD $pack_path?x=1 HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n"
    write_text_seed $target post "POST /pack/ HTTP/1.1\\r\\nContent-Length: 2\\r\\n\\r\\n{}"
    write_text_seed $target metrics "GET http://127.0.0.1:9100/metrics HTTP/1.0\\r\\n\\r\\n"
}

seed_metrics_http() {
    local target=metrics_http
    write_text_seed $target scrape "GET /metrics HTTP/1.1\\r\\nHost: 127.0.0.1:9100\\r\\nAccept: text/plain;version=0.0.4\\r\\n\\r\\n"
    write_text_seed $target head "HEAD /metrics?x=1 HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\n\\r\\n"
    write_text_seed $target absolute "GET http://127.0.0.1:9100/metrics HTTP/1.0\\r\\n\\r\\n"
    write_text_seed $target other "DELETE /metrics/ HTTP/1.1\\r\\nContent-Length: 2\\r\\n\\r\\n{}"
}

seed_rcon() {
    local target=rcon
    write_hex_seed $target login-then-command "$(rcon_packet 1 3 hunter2)$(rcon_packet 2 2 'emote play minecraft:wave Steve')"
    write_hex_seed $target commands "$(rcon_packet 7 2 list)$(rcon_packet 8 2 '/say hello')$(rcon_packet 9 2 'emote list 2')"
    write_hex_seed $target unknown-type "$(rcon_packet 3 9 help)$(rcon_packet 4 2 stop)"
}

all_targets=(emote_json snbt molang anim_clip emotecraft_json blockbench bedrock gltf three_ds
    legacy emotecraft_packet animation_channel bungeecord velocity admin_pack pack_http metrics_http rcon)

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
    if ! declare -F "seed_$target" >/dev/null; then
        echo "seeds.sh: no target \`$target\` (targets: ${all_targets[*]})" >&2
        exit 2
    fi
    mkdir -p "$corpus_dir/$target"
    "seed_$target"
done
