-- gpt2-medium.lua — GPT-2 medium: gpt2.lua at 24 layers of 1024 (16
-- heads). The paper's Table 2 gives 345M parameters; counted in full
-- (354,823,168) they are the 355M that openai/gpt-2's README names it by.
return { variant_of = "gpt2", options = { layers = 24, d_model = 1024 } }
