# Generated from ../_async by tools/sdk/generate-python.mjs: edit that, then `npm run sdk:generate:python`.
