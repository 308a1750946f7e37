package answer

import "github.com/openpay-go/openpay"

// ErrorResponse is the gateway's error object, the body of every answer
// outside 2xx: schema ErrorResponse of openapi.yaml. The SDK decodes it
// with a type of its own that it does not export, so the server writes
// this one.
type ErrorResponse struct {
	// Category is the class of the error: request, internal or gateway.
	Category openpay.Category `json:"category"`
	// Description explains the error in words.
	Description string `json:"description"`
	// Code is the gateway's error code.
	Code openpay.Code `json:"error_code"`
	// FraudRules lists the anti-fraud rules the request broke, if any.
	FraudRules []string `json:"fraud_rules,omitempty,omitzero"`
	// HTTPCode repeats the HTTP status.
	HTTPCode int `json:"http_code"`
	// RequestID identifies the request, for support.
	RequestID string `json:"request_id"`
	// RiskData is the anti-fraud assessment of a refused request, when
	// there is one.
	RiskData *openpay.RiskData `json:"risk_data,omitempty"`
}
