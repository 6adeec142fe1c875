/* placeholder until scripts/generate-protos.sh runs */
