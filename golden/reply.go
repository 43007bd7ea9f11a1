package golden

import "encoding/binary"

// ReplySize is the length of a void Set's reply message.
const ReplySize = 16

// SetReply returns the Thrift REPLY the TxEngine writes for a void Set with
// this seqid (docs/abi.md section 8): strict header, name "Set", seqid, and
// an empty result struct. An array, not a slice: the scoreboard builds one
// per Set CALL, and it should not allocate.
func SetReply(seqid int32) [ReplySize]byte {
	var r [ReplySize]byte
	b := binary.BigEndian.AppendUint32(r[:0], 0x8001_0002)
	b = binary.BigEndian.AppendUint32(b, 3)
	b = append(b, "Set"...)
	b = binary.BigEndian.AppendUint32(b, uint32(seqid))
	_ = append(b, 0)
	return r
}
