EXPECT = {}
OPENAI_DIFFERENCES = {}
TECHNIQUE = {"defines": [], "calls": []}
