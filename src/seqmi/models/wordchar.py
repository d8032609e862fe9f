"""Word-level language models measured at character level (Shen 2019 Sec. 4.2.2, 5.2).

Shen trains word-level LSTMs and Transformers but estimates the mutual information of
their samples *at character level*, so that word and character models are compared on
the same curve. :class:`CharLevelSampler` wraps a word-level :class:`~seqmi.models.lm.RNNLM`
or :class:`~seqmi.models.lm.TransformerLM`: it trains exactly like the wrapped model
(``forward``, ``forward_with_state`` and the start token are the word model's), but its
:meth:`~CharLevelSampler.sample` draws words, detokenises them
(:meth:`seqmi.data.text.WordVocab.decode`) and returns rows of *character* ids. Any
code that trains a model and then samples from it,
:func:`seqmi.experiments.ch03_rnn_transformer_mi.run_family` included, thereby measures
a word model at character level.

:func:`add_lstm_dropout` adds the word LSTM's dropout of App. E.1.2 (0.4 after the
embedding and between LSTM layers) to an :class:`~seqmi.models.lm.RNNLM`.

Shape comments in the code use the letters of :mod:`seqmi.models.lm`: ``B`` batch size, ``T``
sequence length (here in words), ``V`` word vocabulary (``vocab_size``), ``C`` width of a
recurrent layer (the ``m`` of Shen 2019).
"""

from __future__ import annotations

import math

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn
from torch.nn import functional as F

from seqmi.data.text import CharVocab, WordVocab
from seqmi.models.lm import RNNLM, TransformerLM
from seqmi.rng import child_seed
from seqmi.validate import check_float, check_int

# each retry of rows that came out short doubles their token count; a model that writes
# almost nothing but separators fails loudly instead of looping
_MAX_ATTEMPTS = 6


def add_lstm_dropout(model: RNNLM, p: float) -> RNNLM:
    """Dropout ``p`` on the embedding output and between stacked layers (App. E.1.2).

    The paper's word LSTMs (PyTorch's ``word_language_model`` example) drop 40% of the
    activations after the embedding and after every LSTM layer but the last. Active in
    training mode only; sampling (eval mode) is unaffected.

    Parameters
    ----------
    model : RNNLM
    p : float
        Dropout rate in ``[0, 1)``.

    Returns
    -------
    RNNLM
        The same model, modified in place.
    """
    check_float("p", p, 0.0, 1.0, high_open=True)
    if p > 0:
        model.rnn.dropout = p  # nn.LSTM applies it between layers (not after the last)
        model.embed.register_forward_hook(lambda module, args, out: F.dropout(out, p, module.training))
    return model


class CharLevelSampler(nn.Module):
    """A word-level language model whose samples come out as character ids.

    Parameters
    ----------
    model : RNNLM or TransformerLM
        The word-level model, over ``len(words)`` tokens.
    words : WordVocab
        Its vocabulary (decodes the sampled token ids).
    chars : CharVocab
        The character alphabet of the returned samples; it must contain every character
        the vocabulary can write (``<unk>``'s included).
    """

    def __init__(self, model: RNNLM | TransformerLM, words: WordVocab, chars: CharVocab) -> None:
        super().__init__()
        if model.vocab_size != len(words):
            raise ValueError(f"model has {model.vocab_size} tokens, vocabulary {len(words)}")
        chars.encode("".join(words.tokens))  # every character a token can write must be known
        self.model = model
        self.words = words
        self.chars = chars
        self.bos = model.bos
        self.vocab_size = model.vocab_size
        self.amp_safe = model.amp_safe

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """The word model's logits (training is at word level)."""
        return self.model(tokens)  # word ids (B, T) -> logits (B, T, V)

    def forward_with_state(self, tokens: torch.Tensor, state=None):
        """The word model's logits and recurrent state (truncated BPTT of word LSTMs)."""
        return self.model.forward_with_state(tokens, state)  # logits (B, T, V); state (depth, B, C), LSTM: (h, c)

    def tokens_for(self, length: int) -> int:
        """Tokens drawn per row of ``length`` characters: the training text's rate plus 25%."""
        return math.ceil(1.25 * length / self.words.chars_per_token) + 16

    def history_state_size(self, length: int) -> int:
        """The word model's state after the tokens that write ``length`` characters."""
        check_int("length", length, 0)
        return self.model.history_state_size(math.ceil(length / self.words.chars_per_token))

    @torch.no_grad()
    def sample(self, n: int, length: int, seed: int, temperature: float = 1.0) -> NDArray[np.int64]:
        """``n`` independent rows of ``length`` characters, each written from the start token.

        Every row is an unconditional word sample, detokenised and cut to ``length``
        characters. A row whose words write fewer characters is drawn again, longer;
        with the default margin this is rare (it needs a sample 25% terser than the
        training text), so the kept rows are the model's own.

        Returns
        -------
        ndarray of int64, shape (n, length)
        """
        check_int("n", n, 1)
        check_int("length", length, 1)
        out = np.empty((n, length), dtype=np.int64)
        todo = np.arange(n)
        n_tokens = self.tokens_for(length)
        for attempt in range(_MAX_ATTEMPTS):
            # the first draw is the word model's own sample with this seed; redraws get named children
            draw_seed = seed if attempt == 0 else child_seed(seed, "redraw", attempt)
            ids = self.model.sample(len(todo), n_tokens, seed=draw_seed, temperature=temperature)
            short = []
            for row, tok in zip(todo, ids):
                text = self.words.decode(tok)
                if len(text) >= length:
                    out[row] = self.chars.encode(text[:length])
                else:
                    short.append(row)
            if not short:
                return out
            todo = np.array(short)
            n_tokens *= 2
        raise RuntimeError(f"{len(todo)} sampled rows stayed shorter than {length} characters")
