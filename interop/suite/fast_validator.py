"""Makes stix2-validator 3.2.0 fast enough for ~87k objects without changing what it checks.

Per object, the stock validator walks the schema folder to find the type's schema, reads it from disk,
and builds a new JSON-schema validator whose registry re-reads and re-crawls every referenced schema
file (common/core.json, timestamp.json, ...): ~10 ms per object. This module only caches those
steps: the same schema files, patched by the validator's own `patch_schema`, loaded once, and one
validator per distinct (schema path, schema) pair. The checks themselves (schemas, MUSTs, SHOULDs,
pattern parsing) run unchanged. stix_validity.py compares both on a sample on every run.
"""
from __future__ import annotations

import functools
import json
import os
import pathlib

from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012
from stix2validator import validator as stock

_original = {'find_schema': stock.find_schema, 'load_schema': stock.load_schema, 'load_validator': stock.load_validator}


@functools.lru_cache(maxsize=None)
def _registry(schema_dir: str) -> Registry:
    """Every schema file under schema_dir, retrieved exactly as the stock callback retrieves it."""
    retrieve = functools.partial(stock.retrieve_from_filesystem, schema_dir=schema_dir)
    resources = []
    for root, _dirs, files in os.walk(schema_dir):
        for name in files:
            if name.endswith('.json'):
                uri = pathlib.Path(os.path.join(root, name)).as_uri()
                resources.append((uri, retrieve(uri)))
    return Registry(retrieve=retrieve).with_resources(resources).crawl()


_validators: dict[tuple, object] = {}
_schema_texts: dict[str, str] = {}


def _load_validator(schema_path, schema, schema_dir):
    # The bundle and observed-data schemas are edited by the caller before this call, so the key
    # includes the schema itself, not only its path.
    key = (schema_path, schema_dir, json.dumps(schema, sort_keys=True))
    validator = _validators.get(key)
    if validator is None:
        patched = stock.patch_schema(schema, schema_path)
        # Refs are relative to the schema file: ../common/core.json from sdos/indicator.json.
        base = schema_dir or os.path.dirname(os.path.dirname(schema_path))
        registry = _registry(os.path.abspath(base)).with_resource(schema_path, DRAFT202012.create_resource(patched))
        validator = stock.STIXValidator(patched, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER)
        _validators[key] = validator
    return validator


def _load_schema(schema_path):
    if schema_path not in _schema_texts:
        with open(schema_path) as schema_file:
            _schema_texts[schema_path] = schema_file.read()
    return json.loads(_schema_texts[schema_path])  # a fresh object: callers may edit it


def install() -> None:
    stock.find_schema = functools.lru_cache(maxsize=None)(_original['find_schema'])
    stock.load_schema = _load_schema
    stock.load_validator = _load_validator


def uninstall() -> None:
    for name, function in _original.items():
        setattr(stock, name, function)
