"""The two skins the render test draws with, both made here, 64x64 RGBA.

* `coded_skin`: every texel has its own colour (red from x, green from y,
  blue 160 in the base layer and 40 in the overlay), and the overlay is an
  all-or-nothing pattern of opaque texels and holes. Two pictures of it
  agree at a pixel only when both show the same texel of the same face.
* `person_skin`: a plain person (hair, a face, a shirt with a jacket
  stripe, sleeves, trousers, shoes) for the pictures a person looks at.
"""

import numpy as np

# The overlay regions of a 64x64 skin: hat, jacket, sleeves, trousers.
OVERLAY_REGIONS = [(32, 0, 32, 16), (16, 32, 24, 16), (40, 32, 16, 16), (0, 32, 16, 16),
                   (0, 48, 16, 16), (48, 48, 16, 16)]

# Part nets (u, v, w, h, d) of the base layer, and of the overlay.
BASE_NETS = {
    "head": (0, 0, 8, 8, 8), "body": (16, 16, 8, 12, 4), "right_arm": (40, 16, 4, 12, 4),
    "left_arm": (32, 48, 4, 12, 4), "right_leg": (0, 16, 4, 12, 4), "left_leg": (16, 48, 4, 12, 4),
}
OVERLAY_NETS = {
    "head": (32, 0, 8, 8, 8), "body": (16, 32, 8, 12, 4), "right_arm": (40, 32, 4, 12, 4),
    "left_arm": (48, 48, 4, 12, 4), "right_leg": (0, 32, 4, 12, 4), "left_leg": (0, 48, 4, 12, 4),
}


def coded_skin():
    """See the module docs."""
    y, x = np.mgrid[0:64, 0:64]
    skin = np.zeros((64, 64, 4), dtype=np.uint8)
    skin[..., 0] = 4 * x + 2
    skin[..., 1] = 4 * y + 2
    skin[..., 2] = 160
    skin[..., 3] = 255
    for (rx, ry, rw, rh) in OVERLAY_REGIONS:
        region = (slice(ry, ry + rh), slice(rx, rx + rw))
        skin[region + (2,)] = 40
        holes = ((x[region] // 2 + y[region]) % 3) != 0
        skin[region + (3,)] = np.where(holes, 0, 255)
    return skin


def _fill(skin, rect, colour):
    x, y, w, h = rect
    skin[y:y + h, x:x + w, :3] = colour
    skin[y:y + h, x:x + w, 3] = 255


def _sides(net, rows):
    """The four side faces' rectangles of a net, cut to `rows`."""
    u, v, w, h, d = net
    top = v + d + rows[0]
    height = rows[1] - rows[0]
    return [(u, top, d, height), (u + d, top, w, height), (u + d + w, top, d, height),
            (u + 2 * d + w, top, w, height)]


def _caps(net):
    u, v, w, _, d = net
    return [(u + d, v, w, d), (u + d + w, v, w, d)]


def person_skin():
    """See the module docs."""
    skin = np.zeros((64, 64, 4), dtype=np.uint8)
    skin_tone, hair, shirt, jacket = (224, 172, 138), (92, 58, 30), (54, 112, 186), (232, 196, 64)
    trousers, shoes, eye, mouth = (48, 52, 78), (70, 44, 28), (40, 40, 48), (170, 80, 80)
    for part, net in BASE_NETS.items():
        for rect in _sides(net, (0, net[3])) + _caps(net):
            _fill(skin, rect, skin_tone if part in ("head", "right_arm", "left_arm") else shirt)
    head = BASE_NETS["head"]
    _fill(skin, _caps(head)[0], hair)
    for rect in _sides(head, (0, 2)):
        _fill(skin, rect, hair)
    _fill(skin, _sides(head, (0, 8))[3], hair)
    front_x, front_y = head[0] + head[4], head[1] + head[4]
    for x in (front_x + 1, front_x + 5):
        _fill(skin, (x, front_y + 4, 2, 1), (250, 250, 250))
        _fill(skin, (x + (1 if x == front_x + 1 else 0), front_y + 4, 1, 1), eye)
    _fill(skin, (front_x + 3, front_y + 6, 2, 1), mouth)
    for arm in ("right_arm", "left_arm"):
        for rect in _sides(BASE_NETS[arm], (0, 5)):
            _fill(skin, rect, shirt)
        _fill(skin, _caps(BASE_NETS[arm])[0], shirt)
    for leg in ("right_leg", "left_leg"):
        net = BASE_NETS[leg]
        for rect in _sides(net, (0, 12)) + _caps(net):
            _fill(skin, rect, trousers)
        for rect in _sides(net, (9, 12)) + _caps(net)[1:]:
            _fill(skin, rect, shoes)
    # The overlay: a jacket stripe down the front and back, cuffs, a hat band.
    body = OVERLAY_NETS["body"]
    for rect in _sides(body, (0, 12))[1::2]:
        x, y, w, h = rect
        _fill(skin, (x + w // 2 - 1, y, 2, h), jacket)
    for arm in ("right_arm", "left_arm"):
        for rect in _sides(OVERLAY_NETS[arm], (4, 5)):
            _fill(skin, rect, jacket)
    for rect in _sides(OVERLAY_NETS["head"], (2, 3)):
        _fill(skin, rect, (180, 40, 40))
    # A little shading so that texels show.
    y, x = np.mgrid[0:64, 0:64]
    shade = 1.0 - 0.06 * (((x * 7 + y * 13) % 5) / 4.0)
    skin[..., :3] = (skin[..., :3] * shade[..., None]).astype(np.uint8)
    return skin
