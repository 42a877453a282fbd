// Tables of business libraries (migration 014_bizlibs), kept beside schema.ts so this work edits its own file.
import type { Generated } from 'kysely';
import type { Flag } from './schema.ts';

export interface ClassifiersTable {
  id: string;
  lib_code: string;
  code: string;
  /** Lower-cased code: unique per library. */
  code_key: string;
  name: string;
  name_en: string;
  /** JSON array of feature names. */
  features: Generated<string>;
  sort: Generated<number>;
  created_at: number;
}

export interface LibAttributesTable {
  id: string;
  classifier_id: string;
  lib_code: string;
  code: string;
  /** Lower-cased code: unique per library (exisAttrCode), so a filter by code names one attribute. */
  code_key: string;
  name: string;
  name_en: string;
  data_type: string;
  required: Flag;
  is_unique: Flag;
  /** JSON array: an enumeration's options. */
  options: Generated<string>;
  sort: Generated<number>;
}

export interface InstanceClassifiersTable {
  instance_id: string;
  classifier_id: string;
  lib_code: string;
}

export interface InstanceAttrsTable {
  instance_id: string;
  attr_id: string;
  /** The value as the API carries it (a number's canonical decimal). */
  value_text: string;
  /** Lower-cased value_text: text filters and uniqueness compare it. */
  value_key: string;
  /** Numbers and dates (epoch days) as numbers, for exact filters on them. */
  value_num: number | null;
  /** value_key for a unique attribute, else null (uniquely indexed with attr_id). */
  unique_key: string | null;
}

export interface BizLibsTables {
  classifiers: ClassifiersTable;
  lib_attributes: LibAttributesTable;
  instance_classifiers: InstanceClassifiersTable;
  instance_attrs: InstanceAttrsTable;
}
