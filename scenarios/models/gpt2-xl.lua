-- gpt2-xl.lua — GPT-2 XL: gpt2.lua at 48 layers of 1600 (25 heads). The
-- paper's Table 2 gives 1542M parameters (named "1.5B"); counting the
-- learned position embeddings and layer-norm parameters as Hugging Face
-- does gives 1558M.
return { variant_of = "gpt2", options = { layers = 48, d_model = 1600 } }
