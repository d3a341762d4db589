-- resnet18.lua — ResNet-18 (He et al. 2016, Table 1), ImageNet 224x224:
-- resnet50.lua's family with basic blocks, [2, 2, 2, 2] a stage.
-- Published: 11.7M params, 1.8e9 multiply-adds (Table 1); torchvision's
-- resnet18: 11,689,512 parameters in 62 tensors (20 convs x 3, fc 2), 1.81
-- GFLOPS.
return { variant_of = "resnet50", options = { depth = 18 } }
