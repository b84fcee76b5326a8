particle minecraft:dust 1 0.2 0.2 1 ~ ~ ~ 0.6 0.5 0.6 0 25
particle minecraft:dust 0.2 0.6 1 1 ~ ~ ~ 0.6 0.5 0.6 0 25
particle minecraft:dust 1 0.9 0.1 1 ~ ~ ~ 0.6 0.5 0.6 0 25
particle minecraft:dust 0.3 1 0.4 1 ~ ~ ~ 0.6 0.5 0.6 0 25
particle minecraft:firework ~ ~ ~ 0.2 0.2 0.2 0.15 20
playsound minecraft:entity.firework_rocket.twinkle player @a ~ ~ ~ 1 1.2
playsound minecraft:entity.firework_rocket.blast player @a ~ ~ ~ 0.8 1.5
