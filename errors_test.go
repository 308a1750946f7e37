package openpay

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// errors.go's table and openapi.yaml's x-error-codes describe the same codes:
// this keeps the two in step.
func TestCodesMatchOpenAPI(t *testing.T) {
	// Read with the YAML decoder the kit links: the OpenAPI tooling is
	// the nested module tests/'s, not a requirement of the SDK.
	src, err := os.ReadFile("openapi.yaml")
	require.NoError(t, err)
	var doc struct {
		Components struct {
			Schemas map[string]*struct {
				ErrorCodes []struct {
					Code       int    `yaml:"code"`
					HTTPStatus int    `yaml:"http_status"`
					Category   string `yaml:"category"`
				} `yaml:"x-error-codes"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	require.NoError(t, yaml.Unmarshal(src, &doc))
	schema := doc.Components.Schemas["ErrorCode"]
	require.NotNil(t, schema)
	require.NotEmpty(t, schema.ErrorCodes, "ErrorCode has x-error-codes")
	seen := map[Code]bool{}
	for _, m := range schema.ErrorCodes {
		code := Code(m.Code)
		seen[code] = true
		info, ok := codes[code]
		if !assert.True(t, ok, "code %d of openapi.yaml has no constant", code) {
			continue
		}
		assert.Equal(t, m.HTTPStatus, info.status, "HTTP status of %d", code)
		assert.Equal(t, Category(m.Category), info.category, "category of %d", code)
	}
	for code := range codes {
		assert.True(t, seen[code], "constant %d is not in openapi.yaml", code)
	}
	assert.Len(t, codes, 32)
	assert.False(t, Code(3007).Documented(), "3007 is not defined by the gateway")
}

func TestErrorIs(t *testing.T) {
	t.Parallel()
	var err error = fmt.Errorf("charging: %w", &Error{Category: CategoryGateway, Code: ErrCardDeclined, HTTPStatus: 402})
	assert.ErrorIs(t, err, ErrCardDeclined)
	assert.ErrorIs(t, err, CategoryGateway)
	assert.NotErrorIs(t, err, ErrCardExpired)
	assert.NotErrorIs(t, err, CategoryRequest)
	assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	var oe *Error
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, 402, oe.HTTPStatus)

	for code, info := range codes {
		e := &Error{Code: code, Category: info.category}
		assert.ErrorIs(t, e, code)
		assert.Equal(t, info.status, code.HTTPStatus())
		assert.Equal(t, info.category, code.Category())
		assert.Contains(t, code.Error(), fmt.Sprint(int(code)))
	}
}

func TestErrorString(t *testing.T) {
	t.Parallel()
	e := &Error{
		Category: CategoryRequest, Code: ErrNotFound, HTTPStatus: 404,
		Description: "The customer with id 'm4hqp35pswl02mmc567' does not exist",
		RequestID:   "1981cdb8-19cb-4bad-8256-e95d58bc035c",
		Method:      "GET", Path: "/v1/mzdtln0bmtms6o3kck8f/customers/m4hqp35pswl02mmc567",
	}
	assert.Equal(t, "openpay: GET /v1/mzdtln0bmtms6o3kck8f/customers/m4hqp35pswl02mmc567: resource not found "+
		"(1005, request, HTTP 404): The customer with id 'm4hqp35pswl02mmc567' does not exist "+
		"[request 1981cdb8-19cb-4bad-8256-e95d58bc035c]", e.Error())

	local := &Error{Category: CategoryRequest, Code: ErrPublicKeyNotAllowed, Description: "not sent"}
	assert.Equal(t, "openpay: operation not allowed with this key (1010, request, not sent): not sent", local.Error())

	opaque := &Error{HTTPStatus: 502, Description: "response body (text/html) is not a gateway error object: <html>"}
	assert.Equal(t, "openpay: unexpected response (HTTP 502): response body (text/html) is not a gateway error object: <html>", opaque.Error())
}

func TestTransportErrorOutcome(t *testing.T) {
	t.Parallel()
	cause := errors.New("connection reset by peer")
	tests := []struct {
		method  string
		reached bool
		unknown bool
	}{
		{"POST", true, true},
		{"PUT", true, true},
		{"DELETE", true, true},
		{"POST", false, false},
		{"GET", true, false},
	}
	for _, tt := range tests {
		e := &TransportError{Method: tt.method, Path: "/v1/m/charges", Attempts: 1, MayHaveReached: tt.reached, Err: cause}
		assert.Equal(t, tt.unknown, errors.Is(e, ErrOutcomeUnknown), "%s reached=%v", tt.method, tt.reached)
		assert.ErrorIs(t, e, cause)
		assert.Equal(t, tt.unknown, strings.Contains(e.Error(), "outcome unknown"))
	}
}

// The error object is decoded whatever form its loose fields take.
func TestDecodeErrorLooseFields(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"category":"request","error_code":"1006","description":"dup","http_code":"409","request_id":"r1"}`,
		`{"category":"request","error_code":1006,"description":"dup","http_code":"","request_id":"r1"}`,
		`{"category":"request","error_code":1006,"description":"dup","http_code":409,"request_id":"r1"}`,
	} {
		var e errorResponse
		require.NoError(t, json.Unmarshal([]byte(body), &e), body)
		assert.Equal(t, ErrDuplicateOrderID, e.ErrorCode, body)
	}
}
