-- vit_b_16.lua — ViT-B/16 (Dosovitskiy et al. 2021), 224x224 as
-- torchvision's vit_b_16 writes it: 16x16 patches (a conv of stride 16)
-- into 196 tokens of 768 plus a class token, learned position embeddings,
-- 12 pre-norm encoder layers (12 heads, MLP 3072), a final layer norm and
-- a 768 -> 1000 head. FLOPs: 2 per weight per token, plus attention scores
-- and weighted sums (2 * 2 * tokens^2 * d a layer); backward twice
-- forward. Published: 86M params (Table 1); torchvision's vit_b_16:
-- 86,567,656 parameters in 152 tensors, 17.56 GFLOPS (multiply-adds).
local tokens, d, mlp, n_layers, classes = 197, 768, 3072, 12, 1000
local layers = {}
local function add(name, params, flops, tensors)
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = tensors }
end
-- conv_proj's weight and bias, class_token, encoder.pos_embedding
add("conv_proj+class_token+pos_embedding", 3 * 16 * 16 * d + d + d + tokens * d, 2 * 3 * 16 * 16 * d * (tokens - 1), 4)
for l = 0, n_layers - 1 do
  local p = "encoder.layers." .. l .. "."
  add(p .. "ln_1+self_attention.in_proj", 2 * d + 3 * d * d + 3 * d, 2 * 3 * d * d * tokens, 4)
  add(p .. "self_attention.scores", 0, 2 * 2 * tokens * tokens * d, 0)
  add(p .. "self_attention.out_proj", d * d + d, 2 * d * d * tokens, 2)
  add(p .. "ln_2+mlp.0", 2 * d + d * mlp + mlp, 2 * d * mlp * tokens, 4)
  add(p .. "mlp.3", mlp * d + d, 2 * mlp * d * tokens, 2)
end
-- The head reads the class token alone.
add("encoder.ln+heads.head", 2 * d + d * classes + classes, 2 * d * classes, 4)
return { name = "vit_b_16", published_params = 86.57e6, layers = layers }
