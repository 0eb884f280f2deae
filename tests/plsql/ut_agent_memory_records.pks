CREATE OR REPLACE PACKAGE ut_agent_memory_records AS
  --%suite(agent memory: records)
  --%suitepath(agent_memory)
  --%rollback(auto)

  --%test(a written record reads back with every field)
  PROCEDURE round_trip;
  --%test(an id already used in its id space is a duplicate)
  --%throws(-20003)
  PROCEDURE duplicate_id;
  --%test(memory-like types share one id space)
  --%throws(-20003)
  PROCEDURE memory_types_share_ids;
  --%test(a failed batch leaves nothing behind)
  PROCEDURE failed_batch_is_atomic;
  --%test(replace swaps the stored record)
  PROCEDURE replace_record;
  --%test(replace never replaces a record of another scope)
  PROCEDURE replace_keeps_other_scope;
  --%test(replace_images never takes over another user's attached image)
  PROCEDURE replace_images_keeps_other_users_image;
  --%test(content over the size limit is an invalid argument)
  --%throws(-20001)
  PROCEDURE oversized_content;
  --%test(expired records are invisible and purged)
  PROCEDURE expiry;
  --%test(ttl_anchor TIMESTAMP without a timestamp is an invalid argument)
  --%throws(-20001)
  PROCEDURE timestamp_anchor_needs_timestamp;
  --%test(a vector of another dimension is rejected)
  --%throws(-20006)
  PROCEDURE dimension_mismatch;
  --%test(update replaces metadata whole and returns null for a missing record)
  PROCEDURE update_record;
  --%test(deleting an image attached to a message is refused)
  --%throws(-20008)
  PROCEDURE attached_image;
  --%test(deleting a thread removes everything it owns)
  PROCEDURE cascade_thread;
  --%test(messages are sliced like Python lists)
  PROCEDURE list_messages_slices;
  --%test(an import keeps created_at, updated_at and expires_at; created_at anchors the TTL)
  PROCEDURE restored_times;
  --%test(a link keeps the created_at of an import)
  PROCEDURE restored_link_time;
  --%test(a restored time that is not ISO-8601 is an invalid argument)
  --%throws(-20001)
  PROCEDURE restored_time_invalid;
  --%test(replace_images keeps, replaces, inserts and deletes a message's images)
  PROCEDURE replace_images;
  --%test(attached images carry their message's expiry)
  PROCEDURE images_follow_expiry;
  --%test(replace_images is validated before anything changes; null deletes every image)
  PROCEDURE replace_images_validation;
  --%test(ids, scopes and labels of 512 non-ASCII characters round-trip)
  PROCEDURE non_ascii_ids;
  --%test(an id of 513 characters is an invalid argument, not ORA-06502)
  --%throws(-20001)
  PROCEDURE overlong_id;
  --%test(an overlong timestamp is an invalid argument, not ORA-06502)
  --%throws(-20001)
  PROCEDURE overlong_timestamp;
  --%test(an overlong record_type is an invalid argument, not ORA-06502)
  --%throws(-20001)
  PROCEDURE overlong_record_type;
  --%test(image bytes whose base64 text passes 32K round-trip)
  PROCEDURE large_image;
  --%test(schema 2: a message carries seq_no, increasing within its thread; other records do not)
  PROCEDURE message_seq_no;
  --%test(a batch with images is stored in input order with its bytes)
  PROCEDURE batch_keeps_order_and_bytes;
  --%test(the first id of a batch already used, in input order, is the one reported)
  PROCEDURE first_used_id_is_reported;
END ut_agent_memory_records;
/
