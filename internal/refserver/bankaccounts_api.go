package refserver

import "net/http"

// registerBankAccounts registers bank accounts stored on a customer (CLABE checked with CLABEValid, 2001 for a repeated CLABE, masked with MaskCLABE).
//
// Second wave: every route answers 501 with code 1004 until its handler is
// written. Replace notImplemented by the handler; keep the operationId, the
// pattern and the success status, which a test checks against openapi.yaml.
func (s *Server) registerBankAccounts(r *routeTable) {
	r.add("listBankAccounts", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/bankaccounts", http.StatusOK, notImplemented)
	r.add("createBankAccount", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/bankaccounts", http.StatusOK, notImplemented)
	r.add("getBankAccount", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/bankaccounts/{bank_account_id}", http.StatusOK, notImplemented)
	r.add("deleteBankAccount", http.MethodDelete, "/v1/{merchant_id}/customers/{customer_id}/bankaccounts/{bank_account_id}", http.StatusNoContent, notImplemented)
}
