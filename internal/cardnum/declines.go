package cardnum

import "strings"

// declineMessages are the error_message texts of card charges that failed,
// by error code: the text a failed charge keeps, and the description of the
// error that answered it.
var declineMessages = map[int]string{
	CodeCardDeclined:              "The card was declined",
	CodeCardExpired:               "The card has expired",
	CodeInsufficientFunds:         "The card doesn't have sufficient funds",
	CodeCardStolen:                "The card was reported as stolen",
	CodeFraudRisk:                 "Fraud risk detected by anti-fraud system",
	CodeOperationNotAllowed:       "The operation is not allowed for this customer or transaction",
	CodeCardNotOnline:             "The card is not supported in online transactions",
	CodeCardLost:                  "The card was reported as lost",
	CodeCardRestricted:            "The bank has restricted the card",
	CodeCardRetained:              "The bank has requested the card to be retained",
	CodeBankAuthorizationRequired: "Bank authorization is required for this charge",
}

// genericDecline is the message of a decline whose code has none of its own.
const genericDecline = "The payment was declined"

// DeclineMessage returns the error_message of a card charge that failed
// with code.
func DeclineMessage(code int) string {
	if m, ok := declineMessages[code]; ok {
		return m
	}
	return genericDecline
}

// DeclineCode returns the code whose decline message msg is, compared
// without case and without a final period ("The card has expired." is
// 3002), or 0 when msg is none of them.
func DeclineCode(msg string) int {
	msg = strings.TrimSuffix(strings.TrimSpace(msg), ".")
	for code, m := range declineMessages {
		if strings.EqualFold(m, msg) {
			return code
		}
	}
	return 0
}
