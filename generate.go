package openpay

// The wire types in types.gen.go are generated from openapi.yaml by the
// oapi-codegen version pinned in tools/go.mod. Edit openapi.yaml, never the
// generated file, then run `go generate ./...`.
//go:generate go tool -modfile=tools/go.mod oapi-codegen -config oapi-codegen.yaml openapi.yaml
