/** The empty Worker: the reference that startup costs are measured against. */
export default {
  fetch() {
    return new Response("ok");
  },
};
