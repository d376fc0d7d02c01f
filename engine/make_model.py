"""Builds the tiny model the real-engine tests serve: a Llama with random weights (a fixed
seed) and a byte-level BPE tokenizer trained on generated text. Nothing is fetched from a
model hub. Usage: python make_model.py OUT_DIR

hidden 128, 2 layers, 2 attention heads (head_dim 64: the CPU attention kernels refuse 16),
vocabulary 2,048, 8,192 positions; about 0.5 MB of weights.
"""
import json
import os
import random
import sys

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
random.seed(520052)
torch.manual_seed(520052)

# Generated text: made-up words, digits, and the sentence the collectors' new_prompt
# writes, so prompts tokenize to a few tokens per word.
letters = "abcdefghijklmnopqrstuvwxyz"
words = ["".join(random.choice(letters) for _ in range(random.randint(2, 9))) for _ in range(4000)]
words += "Line Run the ADP card keeps this prompt Benchmark adp gpu-only clients run".split()
corpus = []
for i in range(3000):
    corpus.append(" ".join(random.choice(words) for _ in range(40)) + f" {i}.")
    corpus.append(f"Line {i}: the ADP card keeps this prompt.")

tok = Tokenizer(models.BPE(unk_token="<unk>"))
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
trainer = trainers.BpeTrainer(
    vocab_size=2048,
    special_tokens=["<s>", "</s>", "<unk>"],
    initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
)
tok.train_from_iterator(corpus, trainer)
fast = PreTrainedTokenizerFast(
    tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>"
)
# A plain chat template: the multi-turn client talks to /v1/chat/completions.
fast.chat_template = (
    "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant: {% endif %}"
)
fast.save_pretrained(out)

cfg = LlamaConfig(
    vocab_size=2048,
    hidden_size=128,
    intermediate_size=256,
    num_hidden_layers=2,
    num_attention_heads=2,
    num_key_value_heads=2,
    max_position_embeddings=8192,
    bos_token_id=0,
    eos_token_id=1,
    tie_word_embeddings=False,
    torch_dtype="float32",
)
model = LlamaForCausalLM(cfg)
model.save_pretrained(out, safe_serialization=True)
with open(os.path.join(out, "MADE_BY.json"), "w") as f:
    json.dump({"by": "engine/make_model.py", "seed": 520052, "random_weights": True}, f)
print(out)
