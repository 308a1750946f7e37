// Package clabe handles CLABEs (Clave Bancaria Estandarizada), the 18-digit
// numbers of Mexican bank accounts: a 3-digit bank code, a 3-digit plaza
// (branch city) code, an 11-digit account number and a check digit. It
// checks and builds them, masks them as the gateway shows them, and names
// the bank of a bank code.
package clabe

import (
	"fmt"
	"strings"

	"github.com/openpay-go/openpay/internal/ascii"
)

// length is the number of digits of a CLABE.
const length = 18

// weights are the weights of the CLABE check digit, repeating over the
// first 17 digits.
var weights = [3]int{3, 7, 1}

// CheckDigit returns the check digit ('0' to '9') of a CLABE whose first 17
// digits are the first 17 characters of s; anything after them is ignored.
// ok is false when s has fewer than 17 characters or they are not all ASCII
// digits.
func CheckDigit(s string) (digit byte, ok bool) {
	if len(s) < length-1 || !ascii.Digits(s[:length-1]) {
		return 0, false
	}
	sum := 0
	for i := 0; i < length-1; i++ {
		sum += (int(s[i]-'0') * weights[i%3]) % 10
	}
	return byte('0' + (10-sum%10)%10), true
}

// Valid reports whether s is a well-formed CLABE: exactly 18 ASCII digits
// whose last digit is the check digit of the first 17. It does not ask
// whether the bank code is in the catalogue: see [Bank].
func Valid(s string) bool {
	if len(s) != length || !ascii.Digits(s) {
		return false
	}
	d, _ := CheckDigit(s)
	return s[length-1] == d
}

// New builds a valid CLABE from a 3-digit bank code, a 3-digit plaza
// (branch) code and an account number of at most 11 digits, which is padded
// with leading zeros. It returns "" when bankCode or branch is not three
// digits or account does not fit in 11 digits.
func New(bankCode, branch string, account uint64) string {
	if len(bankCode) != 3 || !ascii.Digits(bankCode) || len(branch) != 3 || !ascii.Digits(branch) {
		return ""
	}
	if account > 99_999_999_999 {
		return ""
	}
	body := fmt.Sprintf("%s%s%011d", bankCode, branch, account)
	d, _ := CheckDigit(body)
	return body + string(d)
}

// UnknownBankName and UnknownBankCode are what the gateway shows as the
// issuing bank of a card it cannot place (see the card object example).
const (
	UnknownBankName = "DESCONOCIDO"
	UnknownBankCode = "000"
)

// banks is a part of the Mexican bank-code catalogue (the first three digits
// of a CLABE), with the abbreviated names the gateway returns in bank_name.
// 012 is "BANCOMER" as the bank-account examples show it (one card example
// writes "BBVA BANCOMER"; the bank-account object is the catalogue's user).
// 002 is "Banamex", not upper case: every documented answer for bank code
// 002 (the cards 411111XXXXXX1111) spells it so, and the vendor's Ruby
// specs of all three countries read it.
var banks = map[string]string{
	"002": "Banamex",
	"006": "BANCOMEXT",
	"009": "BANOBRAS",
	"012": "BANCOMER",
	"014": "SANTANDER",
	"019": "BANJERCITO",
	"021": "HSBC",
	"030": "BAJIO",
	"032": "IXE",
	"036": "INBURSA",
	"042": "MIFEL",
	"044": "SCOTIABANK",
	"058": "BANREGIO",
	"059": "INVEX",
	"060": "BANSI",
	"062": "AFIRME",
	"072": "BANORTE",
	"103": "AMERICAN EXPRESS",
	"106": "BAMSA",
	"108": "TOKYO",
	"110": "JP MORGAN",
	"112": "BMONEX",
	"113": "VE POR MAS",
	"127": "AZTECA",
	"128": "AUTOFIN",
	"130": "COMPARTAMOS",
	"132": "MULTIVA",
	"133": "ACTINVER",
	"135": "NAFIN",
	"136": "INTERCAM BANCO",
	"137": "BANCOPPEL",
	"138": "ABC CAPITAL",
	"143": "CIBANCO",
	"145": "BBASE",
	"147": "BANKAOOL",
	"148": "PAGATODO",
	"152": "BANCREA",
	"156": "SABADELL",
	"166": "BANSEFI",
	"600": "MONEXCB",
	"601": "GBM",
	"602": "MASARI",
	"605": "VALUE",
	"646": "STP",
	"647": "TELECOMM",
	"652": "ASEA",
	"653": "KUSPIT",
}

// Bank returns the abbreviated name of the bank with the given 3-digit
// code, and whether the code is in the catalogue.
func Bank(code string) (name string, ok bool) {
	name, ok = banks[code]
	return name, ok
}

// BankOf returns the bank code and name of a CLABE's first three digits,
// and whether the bank is in the catalogue. It does not check the rest of
// the number: see [Valid].
func BankOf(clabe string) (code, name string, ok bool) {
	if len(clabe) < 3 || !ascii.Digits(clabe[:3]) {
		return "", "", false
	}
	name, ok = banks[clabe[:3]]
	if !ok {
		return "", "", false
	}
	return clabe[:3], name, true
}

// Mask returns a CLABE as the gateway shows it in responses: the bank
// code (first three digits) and the last five kept, the rest replaced by
// 'X' ("012180001232424616" -> "012XXXXXXXXXX24616"). Input that is not made
// of digits, or has fewer than twelve of them, is replaced by X's entirely.
func Mask(s string) string {
	if len(s) < 12 || !ascii.Digits(s) {
		return strings.Repeat("X", len(s))
	}
	return s[:3] + strings.Repeat("X", len(s)-8) + s[len(s)-5:]
}
