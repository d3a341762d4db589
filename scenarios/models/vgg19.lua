-- vgg19.lua — VGG-19 (Simonyan & Zisserman 2015, configuration E): vgg16.lua
-- with four convs in each of the last three stages. Published: 144M params
-- (Table 2); torchvision's vgg19: 143,667,240 parameters in 38 tensors,
-- 19.63 GFLOPS (multiply-adds).
return { variant_of = "vgg16", options = { depth = 19 } }
