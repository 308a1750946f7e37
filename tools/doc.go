// Package tools pins the code generators of openpay-go in a module of its own,
// so that their dependencies never reach the go.mod of merchants who import
// the SDK. The root package's generate.go runs them with
// `go tool -modfile=tools/go.mod`.
package tools
