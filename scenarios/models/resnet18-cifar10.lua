-- resnet18-cifar10.lua — ResNet-18 for CIFAR-10 (32x32, 10 classes) as
-- most CIFAR studies train it (kuangliu/pytorch-cifar's ResNet18, which
-- PowerSGD's and many decentralized papers' code bases adapt): resnet18
-- with a 3x3 stem at stride 1 and no max-pool (stages at 32, 16, 8, 4) and
-- a 512 -> 10 classifier. Published: 11.17M parameters (11,173,962:
-- resnet18's 11,689,512 less the 7x7 stem's and the 1000-way classifier's
-- difference), 0.56e9 multiply-adds a 32x32 image.
return { variant_of = "resnet50", options = { depth = 18, stem = "cifar", image = 32, classes = 10 } }
