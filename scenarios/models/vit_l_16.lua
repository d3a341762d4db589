-- vit_l_16.lua — ViT-L/16 (Dosovitskiy et al. 2021), 224x224: vit_b_16.lua
-- at 24 layers of 1024, MLP 4096 (16 heads). Published: 307M params
-- (Table 1); torchvision's vit_l_16: 304,326,632 parameters in 296
-- tensors, 61.55 GFLOPS (multiply-adds).
return { variant_of = "vit_b_16", options = { layers = 24, d_model = 1024, mlp = 4096 } }
