/** The XMLSchema-instance namespace, whose `nil` attribute marks the nil Tax element. */
export const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';
