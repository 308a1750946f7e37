package openpay

import (
	"encoding/json"

	"github.com/openpay-go/openpay/internal/cardnum"
)

// failureCode is the error code of a failed transaction: its error_code
// when the gateway sent one, else the code its error_message names (the
// decline messages of card charges), else the code of its kind of failure:
// ErrCardDeclined for a card charge, ErrFundsTransferRejected for anything
// else (a payout, a bank or store payment). It is the one place the SDK
// turns a failed transaction into a code: Transaction.ErrorCode on decode,
// and the error a lost answer's failed transaction stands for
// (failedTxError).
func failureCode(tx *Transaction) Code {
	if tx.ErrorCode != 0 {
		return tx.ErrorCode
	}
	if code := Code(cardnum.DeclineCode(tx.ErrorMessage)); code != 0 {
		return code
	}
	if tx.Method == TransactionMethodCard {
		return ErrCardDeclined
	}
	return ErrFundsTransferRejected
}

// UnmarshalJSON decodes a transaction and, when it failed and the answer
// sent no error_code, fills ErrorCode from its error_message (see
// Transaction.ErrorCode), so that every failed transaction the SDK returns
// or delivers carries a code to act on.
func (tx *Transaction) UnmarshalJSON(b []byte) error {
	type plain Transaction // without this method
	if err := json.Unmarshal(b, (*plain)(tx)); err != nil {
		return err
	}
	if tx.Status == TransactionStatusFailed && tx.ErrorCode == 0 {
		tx.ErrorCode = failureCode(tx)
	}
	return nil
}
