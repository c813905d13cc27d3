"""Stand-in for triton.language: what kernel signatures evaluate at definition time."""


class constexpr:
    def __init__(self, value):
        self.value = value


class dtype:
    primitive_bitwidth = 0

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


float16 = dtype("fp16")
float32 = dtype("fp32")
