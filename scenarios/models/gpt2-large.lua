-- gpt2-large.lua — GPT-2 large: gpt2.lua at 36 layers of 1280 (20 heads).
-- The paper's Table 2 gives 762M parameters; counted in full (774,030,080)
-- they are the 774M that openai/gpt-2's README names it by.
return { variant_of = "gpt2", options = { layers = 36, d_model = 1280 } }
