import CCurl

/// libcurl's process-wide initialisation, done once before the first handle is made (curl_easy_init would do it
/// lazily, but not safely from several threads at once on every libcurl version).
enum CurlGlobal {
    static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
}
